import { isDeepStrictEqual } from 'node:util'
import type { FieldSnapshot } from '../schema/snapshot.js'
import type { ChangeClass, ChangeKind, SchemaChange } from './changes.js'

/** A field change before it is tied to its resource. */
export type FieldChange = Omit<SchemaChange, 'resource' | 'collection'>

const show = (v: unknown): string => JSON.stringify(v)
const join = (prefix: string, name: string): string => (prefix === '' ? name : `${prefix}.${name}`)

function change (
  kind: ChangeKind,
  cls: ChangeClass,
  needsVersion: boolean,
  field: string,
  message: string
): FieldChange {
  return { kind, class: cls, needsVersion, field, message, paths: [field] }
}

/** A required field a create must send (no default to fill it). */
const mustSend = (f: FieldSnapshot): boolean => f.required && f.default === undefined && f.computed !== true

function added (path: string, f: FieldSnapshot): FieldChange {
  if (f.computed === true) return change('field-added', 'safe', false, path, `computed field ${path} added`)
  if (mustSend(f)) {
    return change(
      'field-added',
      'needs-data',
      true,
      path,
      `field ${path} added: required, no default (stored records lack it; creates must send it)`
    )
  }
  const how = f.required ? `required with default ${show(f.default)}` : 'optional'
  return change('field-added', 'safe', false, path, `field ${path} added (${how})`)
}

function removed (path: string, f: FieldSnapshot): FieldChange {
  if (f.computed === true) return change('field-removed', 'needs-version', true, path, `computed field ${path} removed`)
  // A field some roles could not read must not become readable by all through the values left behind.
  if (f.readRoles !== undefined) {
    return change(
      'field-removed',
      'needs-data',
      true,
      path,
      `field ${path} removed: its stored values, readable by ${show(f.readRoles)} only until now, are no longer hidden by any acl`
    )
  }
  return {
    ...change(
      'field-removed',
      'needs-data',
      true,
      path,
      `field ${path} removed: stored values stay (and reads may still return them) until a migration removes them`
    ),
    leftBehind: true
  }
}

/**
 * Removed and added fields of one object, with one removed and one added field of the same type
 * read as a rename (a guess the message says): the stored values must move.
 */
function addedAndRemoved (prefix: string, before: FieldSnapshot[], after: FieldSnapshot[], out: FieldChange[]): void {
  const gone = before.filter((b) => !after.some((a) => a.name === b.name))
  const fresh = after.filter((a) => !before.some((b) => b.name === a.name))
  if (
    gone.length === 1 &&
    fresh.length === 1 &&
    gone[0].type === fresh[0].type &&
    gone[0].computed !== true &&
    fresh[0].computed !== true
  ) {
    const from = join(prefix, gone[0].name)
    const to = join(prefix, fresh[0].name)
    const rename = change(
      'field-renamed',
      'needs-data',
      true,
      to,
      `field ${from} renamed to ${to}? (one removed, one added of type ${fresh[0].type}): stored values stay under ${from} until a migration moves them`
    )
    // Blocking only when the new name must be there (or the old one was hidden from some roles).
    const leftBehind = !mustSend(fresh[0]) && gone[0].readRoles === undefined
    out.push({ ...rename, paths: [from, to], ...(leftBehind ? { leftBehind: true as const } : {}) })
    return
  }
  for (const f of gone) out.push(removed(join(prefix, f.name), f))
  for (const f of fresh) out.push(added(join(prefix, f.name), f))
}

function enumChange (path: string, b: unknown[] | undefined, a: unknown[] | undefined): FieldChange | null {
  if (isDeepStrictEqual(b, a)) return null
  if (a === undefined) return change('enum-removed', 'safe', false, path, `${path}: enum removed`)
  if (b === undefined) return change('enum-added', 'needs-data', true, path, `${path}: enum ${show(a)} added`)
  const lost = b.filter((v) => !a.includes(v))
  if (lost.length === 0) {
    return change(
      'enum-widened',
      'safe',
      false,
      path,
      `${path}: enum widened by ${show(a.filter((v) => !b.includes(v)))}`
    )
  }
  return change('enum-narrowed', 'needs-data', true, path, `${path}: enum narrowed, ${show(lost)} no longer allowed`)
}

function minChange (path: string, b: number | undefined, a: number | undefined): FieldChange | null {
  if (b === a) return null
  if (a === undefined) return change('min-removed', 'safe', false, path, `${path}: min ${String(b)} removed`)
  if (b === undefined) return change('min-added', 'needs-data', true, path, `${path}: min ${a} added`)
  return a > b
    ? change('min-raised', 'needs-data', true, path, `${path}: min raised from ${b} to ${a}`)
    : change('min-lowered', 'safe', false, path, `${path}: min lowered from ${b} to ${a}`)
}

function statesChange (path: string, b: string[] | undefined, a: string[] | undefined): FieldChange | null {
  if (isDeepStrictEqual(b, a) || b === undefined || a === undefined) return null
  const lost = b.filter((s) => !a.includes(s))
  if (lost.length > 0) {
    return change(
      'states-removed',
      'needs-data',
      true,
      path,
      `${path}: states ${show(lost)} removed (records in them no longer fit)`
    )
  }
  return change('states-added', 'safe', false, path, `${path}: states ${show(a.filter((s) => !b.includes(s)))} added`)
}

function requiredChange (path: string, b: FieldSnapshot, a: FieldSnapshot): FieldChange | null {
  if (mustSend(b) === mustSend(a)) {
    if (b.required !== a.required) {
      return change(
        a.required ? 'required-added' : 'required-removed',
        'safe',
        false,
        path,
        `${path}: required ${a.required ? `with default ${show(a.default)}` : 'dropped'}`
      )
    }
    return null
  }
  if (mustSend(a)) {
    const why = b.required ? 'its default was removed' : 'now required, no default'
    return change(
      'required-added',
      'needs-data',
      true,
      path,
      `${path}: ${why} (stored records without a value no longer fit; creates must send it)`
    )
  }
  return change(
    'required-removed',
    'safe',
    false,
    path,
    `${path}: ${a.required ? `a default ${show(a.default)} now fills it` : 'no longer required'}`
  )
}

function aclChange (path: string, b: string[] | undefined, a: string[] | undefined): FieldChange | null {
  if (isDeepStrictEqual(b, a)) return null
  const narrower = a !== undefined && (b === undefined || b.some((r) => !a.includes(r)))
  return narrower
    ? change(
      'read-restricted',
      'needs-version',
      true,
      path,
        `${path}: readable by ${show(a)} only (other clients stop seeing it)`
    )
    : change('read-opened', 'safe', false, path, `${path}: readable more widely`)
}

/** Every change between two declarations of the same field (its nested fields included). */
function fieldChanges (path: string, b: FieldSnapshot, a: FieldSnapshot, out: FieldChange[]): void {
  if (b.type !== a.type) {
    out.push(change('type-changed', 'needs-data', true, path, `${path}: type ${b.type} → ${a.type}`))
    return
  }
  if (b.computed !== a.computed) {
    out.push(
      a.computed === true
        ? change(
          'computed-added',
          'needs-version',
          true,
          path,
            `${path} is now computed (stored values are ignored; writes of it are refused)`
        )
        : change(
          'computed-removed',
          mustSend(a) ? 'needs-data' : 'safe',
          mustSend(a),
          path,
            `${path} is no longer computed: it is stored from now on`
        )
    )
    return
  }
  const found = [
    requiredChange(path, b, a),
    a.states === undefined ? enumChange(path, b.enum, a.enum) : statesChange(path, b.states, a.states),
    minChange(path, b.min, a.min),
    aclChange(path, b.readRoles, a.readRoles)
  ]
  if (b.lowercase !== a.lowercase) {
    found.push(
      a.lowercase === true
        ? change(
          'lowercase-added',
          'needs-data',
          false,
          path,
            `${path}: now lowercase (stored values with capitals no longer match filters)`
        )
        : change('lowercase-removed', 'safe', false, path, `${path}: no longer lowercased`)
    )
  }
  if (!isDeepStrictEqual(b.default, a.default) && b.required === a.required && mustSend(b) === mustSend(a)) {
    found.push(
      change('default-changed', 'safe', false, path, `${path}: default ${show(b.default)} → ${show(a.default)}`)
    )
  }
  if (b.searchable !== a.searchable) {
    found.push(
      change(
        'searchable-changed',
        'safe',
        false,
        path,
        `${path}: ${a.searchable === true ? 'now' : 'no longer'} searchable (the text index is rebuilt at start-up)`
      )
    )
  }
  for (const c of found) if (c !== null) out.push(c)
  if (b.fields !== undefined && a.fields !== undefined) diffFields(path, b.fields, a.fields, out)
  if (b.items !== undefined && a.items !== undefined) {
    // Array items share their array's path: their rules are the array's.
    const items: FieldChange[] = []
    fieldChanges(path, { ...b.items, name: b.name }, { ...a.items, name: a.name }, items)
    out.push(...items)
  }
}

/** Changes between two field lists at `prefix` (`''` for the top level). */
export function diffFields (
  prefix: string,
  before: FieldSnapshot[],
  after: FieldSnapshot[],
  out: FieldChange[] = []
): FieldChange[] {
  addedAndRemoved(prefix, before, after, out)
  for (const a of after) {
    const b = before.find((x) => x.name === a.name)
    if (b !== undefined) fieldChanges(join(prefix, a.name), b, a, out)
  }
  return out
}
