/**
 * Framing of journal and snapshot records.
 *
 * A record is   magic u32 | crc32 u32 | payloadLength u32 | seq u64 | payload
 * (little endian). The CRC covers everything after itself (length, seq, payload), so a torn
 * or bit-flipped record is detected whether the damage hits the header or the body.
 * The payload is a concatenation of BSON documents: one per journal entry, so a single commit
 * of many documents never has to fit into one 16 MB BSON document.
 */
import { crc32 } from 'node:zlib'
import { serialize, type Document } from 'bson'
import { decodeDocument } from '../bson/bson-decode.js'

export const RECORD_MAGIC = 0xdbd0_c0de
export const HEADER_BYTES = 20
/** A record larger than this is treated as damage: no legitimate commit comes close. */
export const MAX_PAYLOAD_BYTES = 1024 * 1024 * 1024

export function encodeRecord (seq: number, docs: readonly Document[]): Buffer {
  const parts = docs.map((d) => serialize(d, { checkKeys: false, ignoreUndefined: false }))
  return frame(seq, parts)
}

/** Frames already-serialized BSON documents. */
export function frame (seq: number, bsonParts: readonly Uint8Array[]): Buffer {
  let payloadLength = 0
  for (const p of bsonParts) payloadLength += p.byteLength
  const buf = Buffer.allocUnsafe(HEADER_BYTES + payloadLength)
  buf.writeUInt32LE(RECORD_MAGIC, 0)
  buf.writeUInt32LE(payloadLength, 8)
  buf.writeBigUInt64LE(BigInt(seq), 12)
  let offset = HEADER_BYTES
  for (const p of bsonParts) {
    buf.set(p, offset)
    offset += p.byteLength
  }
  buf.writeUInt32LE(crc32(buf.subarray(8)), 4)
  return buf
}

export interface DecodedRecord {
  seq: number
  docs: Document[]
  /** Offset just past this record. */
  end: number
}

/** Why a record at some offset could not be read. */
export type RecordProblem = 'truncated' | 'bad-magic' | 'bad-length' | 'bad-crc' | 'bad-bson'

export type ReadResult = { ok: true; record: DecodedRecord } | { ok: false; problem: RecordProblem }

/** Reads the record starting at `offset`; never throws. */
export function readRecord (buf: Buffer, offset: number): ReadResult {
  if (buf.length - offset < HEADER_BYTES) return { ok: false, problem: 'truncated' }
  if (buf.readUInt32LE(offset) !== RECORD_MAGIC) return { ok: false, problem: 'bad-magic' }
  const length = buf.readUInt32LE(offset + 8)
  if (length > MAX_PAYLOAD_BYTES) return { ok: false, problem: 'bad-length' }
  const end = offset + HEADER_BYTES + length
  if (end > buf.length) return { ok: false, problem: 'truncated' }
  if (crc32(buf.subarray(offset + 8, end)) !== buf.readUInt32LE(offset + 4)) return { ok: false, problem: 'bad-crc' }
  const seq = Number(buf.readBigUInt64LE(offset + 12))
  const docs = splitBson(buf, offset + HEADER_BYTES, end)
  if (docs === undefined) return { ok: false, problem: 'bad-bson' }
  return { ok: true, record: { seq, docs, end } }
}

function splitBson (buf: Buffer, start: number, end: number): Document[] | undefined {
  const docs: Document[] = []
  let pos = start
  try {
    while (pos < end) {
      if (end - pos < 5) return undefined
      const size = buf.readInt32LE(pos)
      if (size < 5 || pos + size > end) return undefined
      // The wire's decoding (engine/bson-decode.ts): a document read back from disk has exactly
      // the shape the engine had in memory before the restart.
      docs.push(decodeDocument(buf.subarray(pos, pos + size)))
      pos += size
    }
  } catch {
    return undefined
  }
  return docs
}

export interface ScanResult {
  records: DecodedRecord[]
  /** Length of the valid prefix of the file. */
  validLength: number
  /** Set when the file has bytes after the valid prefix. */
  damage?: { offset: number; problem: RecordProblem; laterValidRecordAt?: number }
}

/**
 * Reads every record of a file. Stops at the first unreadable one and reports whether any
 * intact record follows it: damage followed by intact data cannot be a torn tail (a crash only
 * ever loses the end of the last write), so the caller must refuse it instead of dropping data.
 */
export function scanRecords (buf: Buffer): ScanResult {
  const records: DecodedRecord[] = []
  let offset = 0
  while (offset < buf.length) {
    const r = readRecord(buf, offset)
    if (!r.ok) {
      return {
        records,
        validLength: offset,
        damage: { offset, problem: r.problem, laterValidRecordAt: findLaterRecord(buf, offset + 1) }
      }
    }
    records.push(r.record)
    offset = r.record.end
  }
  return { records, validLength: offset }
}

function findLaterRecord (buf: Buffer, from: number): number | undefined {
  const magic = Buffer.alloc(4)
  magic.writeUInt32LE(RECORD_MAGIC, 0)
  let pos = buf.indexOf(magic, from)
  while (pos !== -1) {
    if (readRecord(buf, pos).ok) return pos
    pos = buf.indexOf(magic, pos + 1)
  }
  return undefined
}
