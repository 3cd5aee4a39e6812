import type { FileFieldOptions } from './model.js'
import { SchemaError } from './schema-error.js'

/** Spec default for `file.maxBytes`: 10 MB. */
export const DEFAULT_FILE_MAX_BYTES = 10 * 1024 * 1024

const KEYS = new Set(['maxBytes', 'accept', 'storage', 'visibility'])
// `type/subtype` or `type/*` (RFC 6838 name characters), compared in lower case.
const MIME_RANGE = /^[a-z0-9][a-z0-9!#$&^_.+-]*\/(?:\*|[a-z0-9][a-z0-9!#$&^_.+-]*)$/

function isPlainObject (v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

/**
 * Validates a File field's `file` options and fills the spec's defaults, so every surface reads
 * one complete object: `maxBytes` 10 MB, `storage: 'local'`, `visibility: 'private'`, any type.
 */
export function fileOptions (source: string, key: string, raw: unknown): FileFieldOptions {
  if (raw === undefined) raw = {}
  if (!isPlainObject(raw)) {
    throw new SchemaError(source, key, 'must be an object { maxBytes, accept, storage, visibility }')
  }
  for (const k of Object.keys(raw)) {
    if (!KEYS.has(k)) {
      throw new SchemaError(source, `${key}.${k}`, 'unknown option (maxBytes, accept, storage, visibility)')
    }
  }
  const { maxBytes = DEFAULT_FILE_MAX_BYTES, accept, storage = 'local', visibility = 'private' } = raw
  if (typeof maxBytes !== 'number' || !Number.isSafeInteger(maxBytes) || maxBytes < 1) {
    throw new SchemaError(source, `${key}.maxBytes`, 'must be a positive whole number of bytes')
  }
  if (storage !== 'local' && storage !== 's3') {
    throw new SchemaError(source, `${key}.storage`, "must be 'local' or 's3'")
  }
  if (visibility !== 'private' && visibility !== 'public') {
    throw new SchemaError(source, `${key}.visibility`, "must be 'private' or 'public'")
  }
  const out: FileFieldOptions = { maxBytes, storage, visibility }
  if (accept !== undefined) {
    if (!Array.isArray(accept) || accept.length === 0) {
      throw new SchemaError(source, `${key}.accept`, 'must be a non-empty array of MIME types')
    }
    out.accept = accept.map((a, i) => {
      const type = typeof a === 'string' ? a.trim().toLowerCase() : ''
      if (!MIME_RANGE.test(type)) {
        throw new SchemaError(
          source,
          `${key}.accept[${i}]`,
          `'${String(a)}' is not a MIME type such as image/png or image/*`
        )
      }
      return type
    })
  }
  return out
}
