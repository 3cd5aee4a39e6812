import { ValidationError, validationError, type Issue } from '../errors.js'
import type { FieldModel, ResourceModel } from '../schema/model.js'
import { isWritable } from '../schema/typebox.js'
import { parseDate } from '../values/convert.js'

export type InputMode = 'create' | 'update'

export interface PreparedInput {
  /** Values converted to BSON types (Date), defaults applied on create, strings lowercased. */
  set: Record<string, unknown>
  /** Top-level optional fields set to null on update: removed from the record. */
  unset: string[]
}

/** Stamped by the service: accepted at the top level of a body (a read record can be sent back) and ignored. */
const STAMPED_INPUT = new Set(['_id', 'userId', 'accountId', 'createdAt', 'updatedAt'])

/** Collects every problem of one input instead of stopping at the first. */
class Problems {
  readonly list: Issue[] = []
  add (field: string, message: string): undefined {
    this.list.push({ field, message })
    return undefined
  }
}

function isObject (v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date)
}

/** Mixed values are stored as given, but keys that MongoDB would read as operators or paths are refused. */
function mixedKeyProblem (v: unknown, depth = 0): string | null {
  if (depth > 32) return 'is nested too deeply'
  if (Array.isArray(v)) {
    for (const x of v) {
      const p = mixedKeyProblem(x, depth + 1)
      if (p !== null) return p
    }
    return null
  }
  if (!isObject(v)) return null
  for (const k of Object.keys(v)) {
    if (k.startsWith('$') || k.includes('.')) return `may not contain the key '${k}'`
    const p = mixedKeyProblem(v[k], depth + 1)
    if (p !== null) return p
  }
  return null
}

function value (f: FieldModel, path: string, v: unknown, p: Problems, strict: boolean): unknown {
  switch (f.kind) {
    case 'string': {
      if (typeof v !== 'string') return p.add(path, 'must be a string')
      const s = f.lowercase ? v.toLowerCase() : v
      if (f.enum !== undefined && !f.enum.includes(s)) return p.add(path, `must be one of: ${f.enum.join(', ')}`)
      return s
    }
    case 'number':
      if (typeof v !== 'number' || !Number.isFinite(v)) return p.add(path, 'must be a number')
      if (f.min !== undefined && v < f.min) return p.add(path, `must be >= ${f.min}`)
      if (f.enum !== undefined && !f.enum.includes(v)) return p.add(path, `must be one of: ${f.enum.join(', ')}`)
      return v
    case 'boolean':
      return typeof v === 'boolean' ? v : p.add(path, 'must be a boolean')
    case 'date':
      return parseDate(v) ?? p.add(path, 'must be an ISO 8601 date')
    case 'mixed': {
      const problem = mixedKeyProblem(v)
      return problem === null ? v : p.add(path, problem)
    }
    case 'array':
      if (!Array.isArray(v)) return p.add(path, 'must be an array')
      return v.map((x, i) => value(f.items!, `${path}.${i}`, x, p, strict))
    case 'object':
      if (!isObject(v)) return p.add(path, 'must be an object')
      return object(f.fields!, v, 'create', path, p, strict).set
    case 'file':
      return p.add(path, 'is managed by the file routes')
  }
}

function defaultOf (f: FieldModel): unknown {
  const d = typeof f.default === 'function' ? (f.default as () => unknown)() : f.default
  // Defaults are cloned so a mutable default ([] or {}) is never shared between records.
  return d !== null && typeof d === 'object' && !(d instanceof Date) ? structuredClone(d) : d
}

function object (
  fields: FieldModel[],
  input: Record<string, unknown>,
  mode: InputMode,
  prefix: string,
  p: Problems,
  strict: boolean
): PreparedInput {
  const set: Record<string, unknown> = {}
  const unset: string[] = []
  if (strict) {
    // Own keys against the declared names (a Map/Set, never `in`): `constructor` is just unknown.
    const declared = new Set(fields.map((f) => f.name))
    for (const k of Object.keys(input)) {
      if (!declared.has(k) && !(prefix === '' && STAMPED_INPUT.has(k))) {
        p.add(prefix === '' ? k : `${prefix}.${k}`, 'is not a known field')
      }
    }
  }
  for (const f of fields) {
    if (!isWritable(f)) continue
    const path = prefix === '' ? f.name : `${prefix}.${f.name}`
    let v = Object.hasOwn(input, f.name) ? input[f.name] : undefined
    if ((v === undefined || v === null) && mode === 'create' && f.default !== undefined) v = defaultOf(f)
    if (v === undefined || v === null) {
      if (f.required && (mode === 'create' || v === null)) p.add(path, 'is required')
      else if (v === null && mode === 'update') unset.push(f.name)
      continue
    }
    set[f.name] = value(f, path, v, p, strict)
  }
  return { set, unset }
}

/**
 * The inbound half of the BSON boundary, shared by every surface: validates a create or a
 * partial update against the model (required, types, enum, min, nested, arrays), applies
 * defaults and `lowercase`, converts dates, and reports every problem at once. `strict` (a
 * client's input) refuses unknown keys at any depth, naming each; hook results and upsert
 * seeds are trusted code and only lose keys the model does not declare.
 */
export function prepareInput (
  model: ResourceModel,
  input: unknown,
  mode: InputMode,
  opts: { strict?: boolean } = {}
): PreparedInput {
  if (!isObject(input)) throw new ValidationError('record must be a JSON object', { field: '' })
  const { prepared, issues } = checkInput(model, input, mode, opts)
  if (issues.length > 0) throw validationError(issues)
  return prepared
}

/** prepareInput's checks without the throw: every issue (unbounded) and what would be stored. */
export function checkInput (
  model: ResourceModel,
  input: Record<string, unknown>,
  mode: InputMode,
  opts: { strict?: boolean } = {}
): { prepared: PreparedInput; issues: Issue[] } {
  const problems = new Problems()
  const prepared = object(model.fields, input, mode, '', problems, opts.strict === true)
  return { prepared, issues: problems.list }
}
