import type { FieldKind, FieldModel } from './model.js'
import { SYSTEM_FIELD_SET } from './model.js'
import { SchemaError } from './schema-error.js'
import { fileOptions } from './file-options.js'
import { isPlainObject } from '../values/plain-object.js'

const CTORS = new Map<unknown, FieldKind>([
  [String, 'string'],
  [Number, 'number'],
  [Boolean, 'boolean'],
  [Date, 'date']
])
const NAMES: Record<string, FieldKind> = {
  String: 'string',
  Number: 'number',
  Boolean: 'boolean',
  Date: 'date',
  Mixed: 'mixed',
  File: 'file'
}
const TYPE_NAMES: Record<FieldKind, string> = {
  string: 'String',
  number: 'Number',
  boolean: 'Boolean',
  date: 'date',
  mixed: 'Mixed',
  file: 'File',
  object: 'Object',
  array: 'Array'
}
const OPTION_KEYS = new Set([
  'name',
  'type',
  'required',
  'default',
  'enum',
  'min',
  'lowercase',
  'searchable',
  'computed',
  'reference',
  'stateMachine',
  'file',
  'acl'
])
// No `$` or `.` (operators and paths) and no leading `__` (framework query parameters, __proto__).
const NAME_RE = /^(?!__)[A-Za-z_][A-Za-z0-9_]*$/

/** A field-options object has a `type` that is itself a type (not a nested field named `type`). */
function isFieldOptions (v: unknown): v is Record<string, unknown> {
  return isPlainObject(v) && 'type' in v && Object.keys(v).every((k) => OPTION_KEYS.has(k))
}

/**
 * Normalizes `fields` (top level) into FieldModels. Declared system fields (`userId`, `_id`…)
 * are dropped: the service stamps them, and schemas copied from the spec may list them.
 */
export function normalizeFields (source: string, raw: unknown): FieldModel[] {
  if (!Array.isArray(raw)) throw new SchemaError(source, 'fields', 'must be an array of field definitions')
  const out = fieldList(source, 'fields', raw, '')
  return out.filter((f) => !SYSTEM_FIELD_SET.has(f.name))
}

function fieldList (source: string, key: string, raw: unknown[], prefix: string): FieldModel[] {
  const seen = new Set<string>()
  return raw.map((def, i) => {
    const at = `${key}[${i}]`
    if (!isPlainObject(def)) throw new SchemaError(source, at, 'must be an object with `name` and `type`')
    const name = def.name
    if (typeof name !== 'string' || !NAME_RE.test(name)) {
      throw new SchemaError(
        source,
        `${at}.name`,
        'must be a field name (letters, digits, _; no `$`, `.` or leading `__`)'
      )
    }
    if (seen.has(name)) throw new SchemaError(source, `${at}.name`, `field '${name}' is declared twice`)
    seen.add(name)
    return field(source, `${key}.${name}`, name, prefix, def)
  })
}

function subSchema (source: string, key: string, obj: Record<string, unknown>, prefix: string): FieldModel[] {
  const keys = Object.keys(obj)
  if (keys.length === 0) throw new SchemaError(source, key, 'a nested sub-schema needs at least one field')
  return keys.map((name) => {
    if (!NAME_RE.test(name)) {
      throw new SchemaError(
        source,
        `${key}.${name}`,
        'must be a field name (letters, digits, _; no `$`, `.` or leading `__`)'
      )
    }
    const v = obj[name]
    return field(source, `${key}.${name}`, name, prefix, isFieldOptions(v) ? v : { type: v })
  })
}

function field (source: string, key: string, name: string, prefix: string, def: Record<string, unknown>): FieldModel {
  const path = prefix === '' ? name : `${prefix}.${name}`
  const f = typed(source, key, name, path, def.type)
  applyOptions(source, key, f, def)
  return f
}

function typed (source: string, key: string, name: string, path: string, type: unknown): FieldModel {
  const base = { name, path, required: false, lowercase: false, searchable: false }
  if (type === undefined) throw new SchemaError(source, `${key}.type`, 'is required')
  const scalar = CTORS.get(type) ?? (typeof type === 'string' ? NAMES[type] : undefined)
  if (scalar !== undefined) return { ...base, kind: scalar, typeName: TYPE_NAMES[scalar] }
  const bracket = typeof type === 'string' ? /^\[(\w+)\]$/.exec(type) : null
  if (bracket != null || Array.isArray(type)) {
    const inner = bracket != null ? bracket[1] : (type as unknown[])[0]
    if (Array.isArray(type) && type.length !== 1) {
      throw new SchemaError(source, `${key}.type`, 'array form takes exactly one element type, e.g. [String]')
    }
    const items = typed(source, `${key}.type[0]`, '', path, inner)
    if (items.kind === 'file') throw new SchemaError(source, `${key}.type`, 'arrays of File are not supported')
    return { ...base, kind: 'array', typeName: `[${items.typeName}]`, items }
  }
  if (isPlainObject(type)) {
    return { ...base, kind: 'object', typeName: 'Object', fields: subSchema(source, `${key}.type`, type, path) }
  }
  throw new SchemaError(
    source,
    `${key}.type`,
    `unknown type ${typeof type === 'string' ? `'${type}'` : String(type)} (String, Number, Boolean, Date, Mixed, File, [T] or a nested object)`
  )
}

function applyOptions (source: string, key: string, f: FieldModel, def: Record<string, unknown>): void {
  const bool = (k: string): boolean => {
    if (def[k] === undefined) return false
    if (typeof def[k] !== 'boolean') throw new SchemaError(source, `${key}.${k}`, 'must be a boolean')
    return def[k] as boolean
  }
  f.required = bool('required')
  f.lowercase = bool('lowercase')
  f.searchable = bool('searchable')
  const leaf = f.kind === 'array' ? f.items!.kind : f.kind
  if (f.lowercase && leaf !== 'string') {
    throw new SchemaError(source, `${key}.lowercase`, 'applies to String fields only')
  }
  if (def.enum !== undefined) {
    if (!Array.isArray(def.enum) || def.enum.length === 0) {
      throw new SchemaError(source, `${key}.enum`, 'must be a non-empty array')
    }
    if (!['string', 'number'].includes(leaf)) {
      throw new SchemaError(source, `${key}.enum`, 'applies to String and Number fields only')
    }
    if (def.enum.some((v) => (leaf === 'string' ? typeof v !== 'string' : typeof v !== 'number'))) {
      throw new SchemaError(source, `${key}.enum`, `values must all be ${leaf}s`)
    }
    f.enum = def.enum
  }
  if (def.min !== undefined) {
    if (typeof def.min !== 'number' || !Number.isFinite(def.min)) {
      throw new SchemaError(source, `${key}.min`, 'must be a finite number')
    }
    if (leaf !== 'number') throw new SchemaError(source, `${key}.min`, 'applies to Number fields only')
    f.min = def.min
  }
  if (def.default !== undefined) {
    if (f.kind === 'file') throw new SchemaError(source, `${key}.default`, 'File fields cannot have a default')
    if (f.enum !== undefined && typeof def.default !== 'function' && !f.enum.includes(def.default)) {
      throw new SchemaError(source, `${key}.default`, 'is not one of `enum`')
    }
    f.default = def.default
  }
  // ACL, computed values and state machines are record-level rules: on a nested field they would
  // need per-element projection and transition checks, so they are refused rather than half-applied.
  for (const k of ['acl', 'computed', 'stateMachine']) {
    if (def[k] !== undefined && f.path.includes('.')) {
      throw new SchemaError(source, `${key}.${k}`, 'applies to top-level fields only')
    }
  }
  if (def.computed !== undefined) {
    if (typeof def.computed !== 'function') {
      throw new SchemaError(source, `${key}.computed`, 'must be a function of the record')
    }
    f.computed = def.computed as FieldModel['computed']
  }
  if (def.reference !== undefined) {
    if (typeof def.reference !== 'string') {
      throw new SchemaError(source, `${key}.reference`, 'must name a target schema path')
    }
    f.reference = def.reference
  }
  if (def.file !== undefined && f.kind !== 'file') {
    throw new SchemaError(source, `${key}.file`, "applies to type 'File' only")
  }
  if (f.kind === 'file') fileField(source, key, f, def)
  if (def.acl !== undefined) {
    if (!isPlainObject(def.acl)) {
      throw new SchemaError(source, `${key}.acl`, 'must be an object of read/create/update role lists')
    }
    for (const [slot, roles] of Object.entries(def.acl)) {
      if (!['read', 'create', 'update'].includes(slot)) {
        throw new SchemaError(source, `${key}.acl.${slot}`, 'unknown slot (read, create, update)')
      }
      if (!Array.isArray(roles) || roles.some((r) => typeof r !== 'string')) {
        throw new SchemaError(source, `${key}.acl.${slot}`, 'must be an array of role names')
      }
    }
    // A text index cannot hide a field per role: `q` would probe a hidden field's content.
    if (f.searchable && def.acl.read !== undefined) {
      throw new SchemaError(
        source,
        `${key}.acl.read`,
        'a searchable field cannot be read-restricted (text search would reveal it)'
      )
    }
    f.acl = def.acl
  }
  if (def.stateMachine !== undefined) f.stateMachine = stateMachine(source, `${key}.stateMachine`, f, def.stateMachine)
  // `[String]` with enum/min/lowercase constrains each element: the items carry the rules.
  if (f.kind === 'array') {
    const items = f.items!
    if (f.lowercase) items.lowercase = true
    if (f.enum !== undefined) items.enum = f.enum
    if (f.min !== undefined) items.min = f.min
  }
}

/**
 * A file is uploaded to an existing record through its own route, so a File field lives at the
 * top level (the route is `/:id/<field>`) and cannot be required, searched or computed.
 */
function fileField (source: string, key: string, f: FieldModel, def: Record<string, unknown>): void {
  if (f.path.includes('.')) {
    throw new SchemaError(source, `${key}.type`, 'File fields must be top-level fields (each has its own upload route)')
  }
  if (f.required) {
    throw new SchemaError(
      source,
      `${key}.required`,
      'a File field cannot be required: a record exists before its file is uploaded'
    )
  }
  if (f.searchable) throw new SchemaError(source, `${key}.searchable`, 'a File field cannot be searchable')
  if (def.computed !== undefined) throw new SchemaError(source, `${key}.computed`, 'a File field cannot be computed')
  f.file = fileOptions(source, `${key}.file`, def.file)
}

function stateMachine (source: string, key: string, f: FieldModel, sm: unknown): FieldModel['stateMachine'] {
  if (f.kind !== 'string') throw new SchemaError(source, key, 'applies to String fields only')
  if (!isPlainObject(sm)) throw new SchemaError(source, key, 'must be { initial, states, transitions }')
  const { initial, states, transitions, onEnter } = sm
  if (!Array.isArray(states) || states.length === 0 || states.some((s) => typeof s !== 'string')) {
    throw new SchemaError(source, `${key}.states`, 'must be a non-empty array of state names')
  }
  if (typeof initial !== 'string' || !states.includes(initial)) {
    throw new SchemaError(source, `${key}.initial`, `'${String(initial)}' is not one of states [${states.join(', ')}]`)
  }
  if (!isPlainObject(transitions)) {
    throw new SchemaError(source, `${key}.transitions`, 'must map each state to the states reachable from it')
  }
  for (const [from, tos] of Object.entries(transitions)) {
    if (!states.includes(from)) {
      throw new SchemaError(source, `${key}.transitions.${from}`, `'${from}' is not a declared state`)
    }
    if (!Array.isArray(tos)) throw new SchemaError(source, `${key}.transitions.${from}`, 'must be an array of states')
    for (const to of tos) {
      if (!states.includes(to)) {
        throw new SchemaError(source, `${key}.transitions.${from}`, `transition to undeclared state '${String(to)}'`)
      }
    }
  }
  if (onEnter !== undefined) {
    if (!isPlainObject(onEnter)) throw new SchemaError(source, `${key}.onEnter`, 'must map states to functions')
    for (const [s, fn] of Object.entries(onEnter)) {
      if (!states.includes(s)) throw new SchemaError(source, `${key}.onEnter.${s}`, `'${s}' is not a declared state`)
      if (typeof fn !== 'function') throw new SchemaError(source, `${key}.onEnter.${s}`, 'must be a function')
    }
  }
  if (f.default !== undefined && f.default !== initial) {
    throw new SchemaError(
      source,
      `${key}.default`,
      `a state field starts in its initial state '${initial}'; drop the default`
    )
  }
  if (f.computed !== undefined) throw new SchemaError(source, key, 'a computed field cannot be a state machine')
  if (f.enum !== undefined && states.some((st) => !f.enum!.includes(st))) {
    throw new SchemaError(source, `${key}.states`, "every state must be in the field's enum (or drop enum)")
  }
  if (f.enum === undefined) f.enum = states
  return sm as unknown as FieldModel['stateMachine']
}
