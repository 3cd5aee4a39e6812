import { serialize, type Document } from 'bson'
import { decodeDocument } from '../bson/bson-decode.js'

/** Wire opcodes we speak. OP_COMPRESSED is never negotiated (hello advertises no compressors). */
export const OP_REPLY = 1
export const OP_QUERY = 2004
export const OP_MSG = 2013

export const HEADER_SIZE = 16
export const MAX_MESSAGE_SIZE = 48_000_000
export const MAX_BSON_OBJECT_SIZE = 16 * 1024 * 1024

const CHECKSUM_PRESENT = 1
const MORE_TO_COME = 2
const EXHAUST_ALLOWED = 1 << 16
const KNOWN_MSG_FLAGS = CHECKSUM_PRESENT | MORE_TO_COME | EXHAUST_ALLOWED

export interface Header {
  length: number
  requestId: number
  responseTo: number
  opCode: number
}

export type Request =
  | { kind: 'msg'; header: Header; body: Document; moreToCome: boolean }
  | { kind: 'query'; header: Header; collection: string; body: Document }

/** Thrown for input that cannot be parsed as a request; the connection answers with an error or closes. */
export class WireError extends Error {}

export function readHeader (buf: Buffer): Header {
  return {
    length: buf.readInt32LE(0),
    requestId: buf.readInt32LE(4),
    responseTo: buf.readInt32LE(8),
    opCode: buf.readInt32LE(12)
  }
}

function readBsonAt (buf: Buffer, offset: number, end: number): { doc: Document; size: number } {
  if (offset + 5 > end) throw new WireError('truncated BSON document')
  const size = buf.readInt32LE(offset)
  if (size < 5 || offset + size > end) throw new WireError(`invalid BSON document size ${size}`)
  if (size > MAX_BSON_OBJECT_SIZE + 16 * 1024) throw new WireError('BSON document too large')
  const doc = decodeDocument(buf.subarray(offset, offset + size))
  return { doc, size }
}

function readCString (buf: Buffer, offset: number, end: number): { value: string; next: number } {
  const zero = buf.indexOf(0, offset)
  if (zero < 0 || zero >= end) throw new WireError('unterminated cstring')
  return { value: buf.toString('utf8', offset, zero), next: zero + 1 }
}

/** Parses one complete message (header included). Kind-1 sequences become arrays on the body, as MongoDB does. */
export function parseMessage (buf: Buffer): Request {
  const header = readHeader(buf)
  const end = header.length
  if (header.opCode === OP_MSG) {
    const flags = buf.readUInt32LE(HEADER_SIZE)
    if ((flags & 0xffff & ~KNOWN_MSG_FLAGS) !== 0) throw new WireError(`unknown required OP_MSG flag bits ${flags}`)
    const sectionsEnd = (flags & CHECKSUM_PRESENT) !== 0 ? end - 4 : end
    let offset = HEADER_SIZE + 4
    let body: Document | undefined
    const sequences: Array<[string, Document[]]> = []
    while (offset < sectionsEnd) {
      const kind = buf[offset]
      offset += 1
      if (kind === 0) {
        if (body !== undefined) throw new WireError('OP_MSG has more than one body section')
        const { doc, size } = readBsonAt(buf, offset, sectionsEnd)
        body = doc
        offset += size
      } else if (kind === 1) {
        if (offset + 4 > sectionsEnd) throw new WireError('truncated document sequence')
        const size = buf.readInt32LE(offset)
        const seqEnd = offset + size
        if (size < 5 || seqEnd > sectionsEnd) throw new WireError('invalid document sequence size')
        const id = readCString(buf, offset + 4, seqEnd)
        let pos = id.next
        const docs: Document[] = []
        while (pos < seqEnd) {
          const r = readBsonAt(buf, pos, seqEnd)
          docs.push(r.doc)
          pos += r.size
        }
        sequences.push([id.value, docs])
        offset = seqEnd
      } else {
        throw new WireError(`unknown OP_MSG section kind ${String(kind)}`)
      }
    }
    if (body === undefined) throw new WireError('OP_MSG without a body section')
    for (const [id, docs] of sequences) {
      if (id in body) throw new WireError(`duplicate field ${id} in OP_MSG body and document sequence`)
      body[id] = docs
    }
    return { kind: 'msg', header, body, moreToCome: (flags & MORE_TO_COME) !== 0 }
  }
  if (header.opCode === OP_QUERY) {
    const name = readCString(buf, HEADER_SIZE + 4, end)
    const { doc } = readBsonAt(buf, name.next + 8, end)
    return { kind: 'query', header, collection: name.value, body: doc }
  }
  throw new WireError(`unsupported opcode ${header.opCode}`)
}

let nextRequestId = 1

function header (length: number, responseTo: number, opCode: number): Buffer {
  const h = Buffer.alloc(HEADER_SIZE)
  h.writeInt32LE(length, 0)
  h.writeInt32LE(nextRequestId++ & 0x7fffffff, 4)
  h.writeInt32LE(responseTo, 8)
  h.writeInt32LE(opCode, 12)
  return h
}

export function encodeMsgReply (responseTo: number, doc: Document): Buffer {
  const body = serialize(doc)
  const flagsAndKind = Buffer.alloc(5) // flagBits 0, section kind 0
  return Buffer.concat([header(HEADER_SIZE + 5 + body.length, responseTo, OP_MSG), flagsAndKind, body])
}

export function encodeOpReply (responseTo: number, doc: Document): Buffer {
  const body = serialize(doc)
  const fixed = Buffer.alloc(20) // responseFlags, cursorID(8), startingFrom, numberReturned
  fixed.writeInt32LE(1, 16)
  return Buffer.concat([header(HEADER_SIZE + 20 + body.length, responseTo, OP_REPLY), fixed, body])
}
