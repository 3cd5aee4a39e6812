import { PassThrough } from 'node:stream'
import { finished } from 'node:stream/promises'
import type { FastifyRequest } from 'fastify'
import type { Multipart } from '@fastify/multipart'
import { ValidationError } from '@svc/core'
import type { FileMeta, UploadSource } from '../types.js'

export const FILE_PART = 'file'

function badForm (message: string, cause?: unknown): InstanceType<typeof ValidationError> {
  return new ValidationError(
    message,
    { field: FILE_PART, location: 'body' },
    cause === undefined ? undefined : { cause }
  )
}

/** What @fastify/multipart and busboy throw, as the 400 a client can act on. */
function formError (err: unknown): unknown {
  const code = (err as { code?: string }).code
  if (code === 'FST_FILES_LIMIT') return badForm('send exactly one file part, named "file"', err)
  if (code === 'FST_INVALID_MULTIPART_CONTENT_TYPE') {
    return badForm('the body must be multipart/form-data with one file part named "file"', err)
  }
  if (code === 'FST_PARTS_LIMIT' || code === 'FST_FIELDS_LIMIT') {
    return badForm('too many form parts: send one file part named "file"', err)
  }
  if (typeof code === 'string' && code.startsWith('FST_')) {
    return badForm(`malformed multipart body: ${(err as Error).message}`, err)
  }
  if (err instanceof Error && !('statusCode' in err)) return badForm(`malformed multipart body: ${err.message}`, err)
  return err
}

/** A promise that never resolves and rejects when `p` does: "stop waiting if the upload fails". */
function failureOf (p: Promise<unknown>): Promise<never> {
  return p.then(async () => await new Promise<never>(() => {}))
}

/**
 * Runs `store` on the request's single file part. The part is piped into a gate whose end is
 * held back until the whole form has been read: a second file part (or a broken form) destroys
 * the gate instead, so `store` fails and commits nothing. A refusal by `store` (size, type,
 * tenancy) answers at once, even while the client is still sending. Nothing is buffered here.
 */
export async function uploadFromMultipart (
  request: FastifyRequest,
  maxBytes: number,
  store: (file: UploadSource) => Promise<FileMeta>
): Promise<FileMeta> {
  const gate = new PassThrough()
  // The upload observes a destroyed gate when it reads it (it may not have started reading yet).
  gate.on('error', () => {})
  let upload: Promise<FileMeta> | undefined
  let failed: Promise<never> | undefined
  // Each wait on the form also ends when the upload fails.
  const orFailure = async <T>(p: Promise<T>): Promise<T> => {
    if (failed === undefined) return await p
    p.catch(() => {}) // left pending when the upload failed first
    return await Promise.race([p, failed])
  }
  try {
    const form = request.parts({
      // One byte over the limit reaches the upload's own counter, which refuses it (busboy
      // would otherwise truncate silently at the limit).
      limits: { fileSize: maxBytes + 1, files: 1, fields: 16, fieldSize: 1024, parts: 17, headerPairs: 32 }
    })
    const parts = form[Symbol.asyncIterator]()
    for (;;) {
      const next: IteratorResult<Multipart> = await orFailure(parts.next())
      if (next.done === true) break
      const part = next.value
      if (part.type !== 'file') continue // text fields are allowed and ignored
      if (part.fieldname !== FILE_PART) throw badForm(`the file part must be named "file" (got "${part.fieldname}")`)
      upload = store({ stream: gate, filename: part.filename, mimetype: part.mimetype })
      failed = failureOf(upload)
      failed.catch(() => {}) // observed through orFailure and below
      part.file.pipe(gate, { end: false })
      await orFailure(finished(part.file))
    }
    if (upload === undefined) throw badForm('no file part: send the file as a multipart part named "file"')
  } catch (err) {
    const reason = formError(err)
    if (upload !== undefined) {
      gate.destroy(reason as Error)
      // The upload's own refusal (size, type, tenancy) is the answer when there is one.
      await upload
    }
    throw reason
  }
  gate.end()
  return await upload
}
