import { createHash, randomBytes } from 'node:crypto'

/**
 * Blob keys: `<owner>/<path>/<field>/<id>-<random>.<ext>`. The owner segment namespaces a tenant;
 * the random part makes every upload a new key, so a replaced file can never be served from a
 * URL issued for the old one, nor collide with it while both exist. Every key that reaches a
 * driver matches KEY_RE: no `..`, no separators beyond the four, nothing from the client.
 */
export const KEY_RE =
  /^([A-Za-z0-9_-]{1,128})\/([A-Za-z][A-Za-z0-9_-]*)\/([A-Za-z_][A-Za-z0-9_]*)\/([0-9a-f]{24})-([0-9a-f]{12})\.([a-z0-9]{1,16})$/

const SAFE_OWNER = /^[A-Za-z0-9_-]{1,128}$/

export interface ParsedKey {
  owner: string
  path: string
  field: string
  id: string
}

/** A tenant id usable as a path segment: itself when it is plain, else a hash of it. */
export function ownerSegment (userId: string): string {
  return SAFE_OWNER.test(userId) ? userId : `h-${createHash('sha256').update(userId).digest('hex').slice(0, 40)}`
}

export function newBlobKey (userId: string, path: string, field: string, id: string, ext: string): string {
  const key = `${ownerSegment(userId)}/${path}/${field}/${id.toLowerCase()}-${randomBytes(6).toString('hex')}.${ext}`
  if (!KEY_RE.test(key)) throw new Error(`@svc/files: refusing to build an unsafe key '${key}'`)
  return key
}

export function parseKey (key: string): ParsedKey | null {
  const m = KEY_RE.exec(key)
  return m == null ? null : { owner: m[1], path: m[2], field: m[3], id: m[4] }
}
