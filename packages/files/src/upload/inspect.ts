import { Readable } from 'node:stream'
import { fileTypeFromBuffer, supportedMimeTypes } from 'file-type'
import send from '@fastify/send'
import { ValidationError } from '@svc/core'
import { type FileFieldOptions } from '@svc/core/kit'

// file-type's own sample size: enough for nearly every format it knows.
const SNIFF_BYTES = 4100
const OCTET = 'application/octet-stream'
const EXT_RE = /^[a-z0-9]{1,16}$/

export interface InspectedUpload {
  contentType: string
  /** From the detected (or accepted declared) type, never from the client's file name. */
  ext: string
  /** The whole content again, head included; errors with 400 once it passes `maxBytes`. */
  body: Readable
  /** Bytes that went through `body` so far (the blob's size once it ended). */
  bytes: () => number
}

export function tooLarge (field: string, maxBytes: number): InstanceType<typeof ValidationError> {
  return new ValidationError(`${field}: the file is larger than ${maxBytes} bytes`, {
    field,
    recoverable: true,
    maxBytes
  })
}

function declaredType (mimetype: string | undefined): string | undefined {
  const t = mimetype?.split(';')[0].trim().toLowerCase()
  return t === undefined || t === '' || t === OCTET ? undefined : t
}

function accepts (accept: string[] | undefined, type: string): boolean {
  if (accept === undefined) return true
  return accept.some((a) => a === type || (a.endsWith('/*') && type.startsWith(a.slice(0, -1))))
}

/**
 * The type is what the magic bytes say. When they say nothing, a declared type file-type could
 * have recognised is a lie (refused by `accept`, else stored as octet-stream); one it cannot
 * sniff (text/csv, application/json…) is taken as declared.
 */
async function typeOf (head: Buffer, declared: string | undefined): Promise<{ contentType: string; ext: string }> {
  const detected = head.length === 0 ? undefined : await fileTypeFromBuffer(head)
  if (detected !== undefined) return { contentType: detected.mime, ext: detected.ext }
  if (declared !== undefined && !supportedMimeTypes.has(declared as never)) {
    const ext = send.mime.getExtension(declared) ?? 'bin'
    return { contentType: declared, ext: EXT_RE.test(ext) ? ext : 'bin' }
  }
  return { contentType: OCTET, ext: 'bin' }
}

/**
 * Reads the first bytes of an upload to decide its type (checked against `accept` before
 * anything is stored), then hands back a stream of the whole content that counts bytes and fails
 * with 400 `VALIDATION` (`recoverable: true`) past `maxBytes`, whatever `Content-Length` said.
 * Only the sniffed head is ever held in memory.
 */
export async function inspectUpload (
  source: Readable,
  mimetype: string | undefined,
  field: string,
  opts: FileFieldOptions
): Promise<InspectedUpload> {
  const it = source[Symbol.asyncIterator]() as AsyncIterator<Buffer>
  const chunks: Buffer[] = []
  let headBytes = 0
  let ended = false
  try {
    while (headBytes < SNIFF_BYTES) {
      const next = await it.next()
      if (next.done === true) {
        ended = true
        break
      }
      const chunk = Buffer.isBuffer(next.value) ? next.value : Buffer.from(next.value)
      chunks.push(chunk)
      headBytes += chunk.length
      if (headBytes > opts.maxBytes) throw tooLarge(field, opts.maxBytes)
    }
    const head = Buffer.concat(chunks)
    const type = await typeOf(head.subarray(0, SNIFF_BYTES), declaredType(mimetype))
    if (!accepts(opts.accept, type.contentType)) {
      throw new ValidationError(`${field}: type ${type.contentType} is not accepted (${opts.accept!.join(', ')})`, {
        field,
        recoverable: true,
        contentType: type.contentType,
        accept: opts.accept
      })
    }
    let bytes = head.length
    async function * whole (): AsyncGenerator<Buffer> {
      try {
        if (head.length > 0) yield head
        if (ended) return
        for (;;) {
          const next = await it.next()
          if (next.done === true) return
          const chunk = Buffer.isBuffer(next.value) ? next.value : Buffer.from(next.value)
          bytes += chunk.length
          if (bytes > opts.maxBytes) throw tooLarge(field, opts.maxBytes)
          yield chunk
        }
      } finally {
        // Stops (and destroys) the source when the consumer fails or the limit is passed.
        await it.return?.()
      }
    }
    return { ...type, body: Readable.from(whole(), { objectMode: false }), bytes: () => bytes }
  } catch (err) {
    await it.return?.()
    throw err
  }
}
