// What the console shows of a schema for the signed-in roles: the manifest's field ACL decides
// which fields are absent (no read role) and which are read-only (no create/update role). The
// server enforces the same rules; this only keeps the form from offering what it would refuse.
import type { Field, Schema } from './describe.js'

export type Kind = 'string' | 'number' | 'boolean' | 'date' | 'mixed' | 'file' | 'object' | 'array'

export function kindOf (f: Field): Kind {
  const t = f.type
  if (t.startsWith('[')) return 'array'
  switch (t) {
    case 'String':
      return 'string'
    case 'Number':
      return 'number'
    case 'Boolean':
      return 'boolean'
    case 'date':
    case 'Date':
      return 'date'
    case 'File':
      return 'file'
    case 'Object':
      return 'object'
    default:
      return 'mixed'
  }
}

/** The element kind of an array field (`[String]` → string, `[Object]` → object). */
export function itemKindOf (f: Field): Kind {
  return kindOf({ ...f, type: f.type.slice(1, -1) })
}

function allowed (roles: readonly string[], slot: string[] | undefined): boolean {
  return slot === undefined || slot.some((r) => roles.includes(r))
}

export const canRead = (f: Field, roles: readonly string[]): boolean => allowed(roles, f.acl?.read)
export const canCreate = (f: Field, roles: readonly string[]): boolean => allowed(roles, f.acl?.create)
export const canUpdate = (f: Field, roles: readonly string[]): boolean => allowed(roles, f.acl?.update)

export function stateFields (s: Schema): Set<string> {
  return new Set(Object.keys(s.stateMachines))
}

/** Fields a person may see, declared order, stamped ones last. */
export function readableFields (s: Schema, roles: readonly string[]): Field[] {
  return s.fields.filter((f) => canRead(f, roles))
}

/**
 * Fields a list can filter and sort on: declared scalars (and arrays of scalars), nested paths,
 * system dates — `deletedAt` too when the list shows deleted records (without them the live
 * scope leaves nothing for a `deletedAt` filter to match).
 */
export function filterableFields (
  s: Schema,
  roles: readonly string[],
  { deleted = false }: { deleted?: boolean } = {}
): Array<{ path: string; field: Field }> {
  const stamps = ['_id', 'createdAt', 'updatedAt', ...(deleted ? ['deletedAt'] : [])]
  const out: Array<{ path: string; field: Field }> = []
  const walk = (fields: Field[], prefix: string): void => {
    for (const f of fields) {
      if (f.computed === true || !canRead(f, roles)) continue
      const k = kindOf(f)
      if (k === 'object' && f.fields !== undefined) walk(f.fields, `${prefix}${f.name}.`)
      else if (k === 'array' && itemKindOf(f) === 'object' && f.fields !== undefined) {
        walk(f.fields, `${prefix}${f.name}.`)
      } else if (
        ['string', 'number', 'boolean', 'date'].includes(k) ||
        (k === 'array' && ['string', 'number', 'boolean', 'date'].includes(itemKindOf(f)))
      ) {
        if (f.stamped === true && !stamps.includes(f.name)) continue
        out.push({ path: `${prefix}${f.name}`, field: f })
      }
    }
  }
  walk(s.fields, '')
  return out
}

/** The field that names a record in links and headings: a computed or required text field, else the id. */
export function labelField (s: Schema, roles: readonly string[]): string {
  const text = s.fields.filter(
    (f) => kindOf(f) === 'string' && f.stamped !== true && f.enum === undefined && canRead(f, roles)
  )
  const pick =
    text.find((f) => f.computed === true) ??
    text.find((f) => /^(name|title|label|subject)$/i.test(f.name)) ??
    text.find((f) => f.required) ??
    text[0]
  return pick?.name ?? '_id'
}

export function recordLabel (s: Schema, roles: readonly string[], r: Record<string, unknown>): string {
  const v = r[labelField(s, roles)]
  return typeof v === 'string' && v.trim() !== '' ? v : String(r._id)
}

/** Default table columns: readable scalar fields (state and computed ones included), then `updatedAt`. */
export function defaultColumns (s: Schema, roles: readonly string[]): string[] {
  const label = labelField(s, roles)
  const cols = s.fields.filter(
    (f) =>
      f.stamped !== true &&
      f.name !== label &&
      canRead(f, roles) &&
      (['string', 'number', 'boolean', 'date', 'file'].includes(kindOf(f)) ||
        (kindOf(f) === 'array' && itemKindOf(f) !== 'object'))
  )
  return [...cols.slice(0, 6).map((f) => f.name), 'updatedAt']
}

export function humanize (name: string): string {
  const spaced = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_.]+/g, ' ')
    .trim()
  return spaced.charAt(0).toUpperCase() + spaced.slice(1).toLowerCase()
}
