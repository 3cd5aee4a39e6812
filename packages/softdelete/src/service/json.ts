import { ObjectId } from 'mongodb'

/** BSON → the JSON form write subscribers receive (ObjectId → hex, Date → ISO), like core's. */
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

/** A record id from a URL; null when malformed (answered 404 like core does). */
export function parseId (id: string): ObjectId | null {
  return HEX24.test(id) ? new ObjectId(id) : null
}
