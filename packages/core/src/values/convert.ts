import { ObjectId } from 'mongodb'
import type { FieldKind } from './kinds.js'

/**
 * The outbound half of the BSON boundary: ObjectId → 24-hex string, Date → ISO 8601,
 * recursively, so every surface receives the same JSON-ready record.
 */
export function toJson<T = Record<string, unknown>> (value: unknown): T {
  return out(value) as T
}

function out (v: unknown): unknown {
  if (v === null || typeof v !== 'object') return v
  if (v instanceof Date) return v.toISOString()
  if (v instanceof ObjectId) return v.toHexString()
  if (Array.isArray(v)) return v.map(out)
  const o: Record<string, unknown> = {}
  for (const k in v) o[k] = out((v as Record<string, unknown>)[k])
  return o
}

const HEX24 = /^[0-9a-fA-F]{24}$/

/** A record id from a URL or argument; null when malformed (callers answer 404, not 400). */
export function parseId (id: unknown): ObjectId | null {
  if (id instanceof ObjectId) return id
  return typeof id === 'string' && HEX24.test(id) ? new ObjectId(id) : null
}

/** Strict ISO 8601 date or date-time (a bare number or free text is not a date). */
export const ISO_DATE_PATTERN =
  '^\\d{4}-\\d{2}-\\d{2}(?:[T ]\\d{2}:\\d{2}(?::\\d{2}(?:\\.\\d{1,9})?)?(?:Z|[+-]\\d{2}:?\\d{2})?)?$'
const ISO_DATE = new RegExp(ISO_DATE_PATTERN)

export function parseDate (v: unknown): Date | null {
  if (v instanceof Date) return Number.isNaN(v.getTime()) ? null : v
  if (typeof v !== 'string' || !ISO_DATE.test(v)) return null
  const d = new Date(v)
  return Number.isNaN(d.getTime()) ? null : d
}

/**
 * Casts a filter value (query-string text or a JSON value from another surface) to the
 * field's stored type; undefined means "not castable" and the caller answers 400.
 */
export function castScalar (kind: FieldKind | 'objectId', v: unknown): unknown {
  switch (kind) {
    case 'string':
      return typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : undefined
    case 'number': {
      if (typeof v === 'number') return Number.isFinite(v) ? v : undefined
      if (typeof v !== 'string' || v.trim() === '') return undefined
      const n = Number(v)
      return Number.isFinite(n) ? n : undefined
    }
    case 'boolean':
      if (typeof v === 'boolean') return v
      return v === 'true' ? true : v === 'false' ? false : undefined
    case 'date':
      return parseDate(v) ?? undefined
    case 'objectId':
      return parseId(v) ?? undefined
    default:
      return undefined
  }
}
