import { createHmac, timingSafeEqual } from 'node:crypto'
import { ValidationError } from '../../errors.js'

const VERSION = 1
const MAC_BYTES = 12
const LENGTH = 1 + 8 + MAC_BYTES

/**
 * Opaque resume cursors: base64url of a format byte, the `seq` (8 bytes, big-endian) and a
 * truncated HMAC-SHA256 of both under a key derived from the JWT secret, so an altered cursor is
 * refused instead of silently moving a client's position.
 */
export class EventCursors {
  readonly #key: () => Buffer

  constructor (key: () => Buffer) {
    this.#key = key
  }

  #mac (head: Buffer): Buffer {
    return createHmac('sha256', this.#key()).update(head).digest().subarray(0, MAC_BYTES)
  }

  encode (seq: number): string {
    if (!Number.isSafeInteger(seq) || seq < 0) {
      throw new TypeError(`@svc/core: an event cursor needs a whole seq >= 0 (got ${String(seq)})`)
    }
    const head = Buffer.alloc(9)
    head[0] = VERSION
    head.writeBigUInt64BE(BigInt(seq), 1)
    return Buffer.concat([head, this.#mac(head)]).toString('base64url')
  }

  /** The `seq` of a cursor this service issued; anything else is 400 VALIDATION. */
  decode (cursor: unknown): number {
    const bad = (): never => {
      throw new ValidationError('the event cursor is not one this service issued', { field: 'cursor' })
    }
    if (typeof cursor !== 'string' || !/^[A-Za-z0-9_-]{1,64}$/.test(cursor)) return bad()
    const raw = Buffer.from(cursor, 'base64url')
    if (raw.length !== LENGTH || raw[0] !== VERSION || raw.toString('base64url') !== cursor) return bad()
    const head = raw.subarray(0, 9)
    if (!timingSafeEqual(raw.subarray(9), this.#mac(head))) return bad()
    const seq = head.readBigUInt64BE(1)
    return seq > BigInt(Number.MAX_SAFE_INTEGER) ? bad() : Number(seq)
  }
}
