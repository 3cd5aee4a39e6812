// The form's working copy of a record and the patch it turns into: only changed fields are sent,
// a cleared optional field is sent as null (the API clears it), and JSON fields must parse.
import type { Field } from './describe.js'
import { canCreate, canUpdate, kindOf } from './fields.js'

export type Mode = 'create' | 'update'

/** Fields the form edits: declared, not computed, not files, not state machines, writable by the roles. */
export function editableFields (fields: Field[], states: Set<string>, roles: readonly string[], mode: Mode): Field[] {
  return fields.filter(
    (f) =>
      f.stamped !== true &&
      f.computed !== true &&
      kindOf(f) !== 'file' &&
      !states.has(f.name) &&
      (mode === 'create' ? canCreate(f, roles) : canUpdate(f, roles))
  )
}

export function getPath (obj: unknown, path: Array<string | number>): unknown {
  let cur = obj
  for (const k of path) cur = cur == null ? undefined : (cur as Record<string | number, unknown>)[k]
  return cur
}

/** An immutable update of `obj` at `path`. */
export function setPath (obj: unknown, path: Array<string | number>, value: unknown): unknown {
  if (path.length === 0) return value
  const [k, ...rest] = path
  const base: unknown = obj ?? (typeof k === 'number' ? [] : {})
  const copy: any = Array.isArray(base) ? [...base] : { ...(base as object) }
  copy[k] = setPath(copy[k], rest, value)
  return copy
}

/** A new record's starting values: declared defaults. */
export function initialDraft (fields: Field[]): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const f of fields) if (f.default !== undefined) out[f.name] = f.default
  return out
}

function emptyish (v: unknown): boolean {
  return v === undefined || v === null || v === '' || (Array.isArray(v) && v.length === 0)
}

/** Mixed fields are edited as JSON text (`{ __json: text }`); a text that does not parse is reported by path. */
export class JsonError extends Error {
  constructor (readonly field: string) {
    super(`${field} is not valid JSON`)
  }
}

function finalValue (f: Field, v: unknown): unknown {
  if (v !== null && typeof v === 'object' && '__json' in (v as object)) {
    const text = String((v as { __json: unknown }).__json).trim()
    if (text === '') return null
    try {
      return JSON.parse(text) as unknown
    } catch {
      throw new JsonError(f.name)
    }
  }
  return v
}

/** Create: every non-empty value. Update: the fields whose value changed; emptied ones as null. */
export function payloadOf (
  fields: Field[],
  draft: Record<string, unknown>,
  original: Record<string, unknown> | null
): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const f of fields) {
    const v = finalValue(f, draft[f.name])
    if (original === null) {
      if (!emptyish(v)) out[f.name] = v
      continue
    }
    const before = original[f.name]
    if (JSON.stringify(v ?? null) === JSON.stringify(before ?? null)) continue
    if (emptyish(v) && emptyish(before)) continue
    out[f.name] = emptyish(v) && !Array.isArray(v) ? null : v
  }
  return out
}
