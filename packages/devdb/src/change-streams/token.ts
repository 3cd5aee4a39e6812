/**
 * Resume tokens: `{ _data: <hex string> }` as mongod's, opaque to clients. devdb's encode the
 * event's cluster time (so they sort by time, as mongod's do), its position in the history, whether
 * it is an invalidate, and the server run (epoch) that wrote it.
 */
import { Timestamp, type Document } from 'bson'
import { CommandError } from '../errors.js'
import { isPlainDoc } from '../bson/paths.js'

export interface ResumePoint {
  time: Timestamp
  seq: number
  invalidate: boolean
  epoch: string
}

const hex = (n: number, width: number): string => n.toString(16).padStart(width, '0')

export function encodeToken (p: ResumePoint): Document {
  return { _data: `82${hex(p.time.t, 8)}${hex(p.time.i, 8)}${hex(p.seq, 14)}${p.invalidate ? '01' : '00'}${p.epoch}` }
}

const TOKEN = /^82([0-9a-f]{8})([0-9a-f]{8})([0-9a-f]{14})(0[01])([0-9a-f]{8})$/

export function decodeToken (token: unknown, field: string): ResumePoint {
  const data = isPlainDoc(token) ? token._data : undefined
  const m = typeof data === 'string' ? TOKEN.exec(data) : null
  if (m === null) {
    throw new CommandError(
      260,
      'InvalidResumeToken',
      `Invalid resume token in ${field}: not a token this server issued`
    )
  }
  return {
    time: new Timestamp({ t: parseInt(m[1], 16), i: parseInt(m[2], 16) }),
    seq: parseInt(m[3], 16),
    invalidate: m[4] === '01',
    epoch: m[5]
  }
}
