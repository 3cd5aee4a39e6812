import type { Readable } from 'node:stream'

/** A stored blob as listing reports it (the orphan reconciler's input). */
export interface BlobInfo {
  key: string
  modifiedAt: Date
}

/** What a download URL serves: the stored metadata decides the response headers. */
export interface BlobHeaders {
  contentType: string
  contentDisposition: string
}

/**
 * One storage backend. Keys are already checked against KEY_RE when they get here; drivers check
 * again where a key becomes a path.
 */
export interface StorageDriver {
  readonly name: 'local' | 's3'
  /**
   * Streams `body` to `key`. Resolves once the whole blob is stored; on any error (the body
   * failing included) nothing is left under `key` or elsewhere, and the error is rethrown.
   */
  put(key: string, body: Readable, contentType: string): Promise<void>
  /** Idempotent: removing a missing key succeeds. */
  remove(key: string): Promise<void>
  /** Blobs last written before `before` (keys that are not ours are listed too; the caller filters). */
  list(before: Date): AsyncIterable<BlobInfo>
  /** Removes what interrupted writes left (local temp files) older than `before`; answers how many. */
  cleanIncomplete(before: Date): Promise<number>
  /** A direct, expiring download URL (S3 presigned); undefined when the service serves the blob itself. */
  directUrl(key: string, headers: BlobHeaders, ttlSeconds: number): Promise<string | undefined>
}
