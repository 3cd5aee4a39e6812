/**
 * Snapshot files: the whole state as a sequence of framed records
 *   { t: 'snapshot', v, gen, seq } · { t: 'coll', db, name, options, indexes } ·
 *   { t: 'docs', db, coll, n } + n documents (chunks of ~1 MB) · { t: 'end', collections, docs }
 * A snapshot is only ever read after it was completely written, synced and renamed into place,
 * so any damage in it (or a missing 'end') is corruption and recovery refuses to start.
 */
import { promises as fsp } from 'node:fs'
import { serialize, type Document } from 'bson'
import { frame, scanRecords } from './record-codec.js'
import { StateBuilder } from './state-builder.js'
import type { StoredState } from './types.js'

const FORMAT_VERSION = 1
const CHUNK_BYTES = 1024 * 1024
const BSON_OPTS = { checkKeys: false, ignoreUndefined: false } as const

function bson (d: Document): Uint8Array {
  return serialize(d, BSON_OPTS)
}

/**
 * Serializes the state into record buffers. Done synchronously on purpose: the engine keeps
 * mutating its documents after snapshot() returns, so the bytes must be taken now.
 */
export function encodeSnapshot (state: StoredState, gen: number, seq: number): Buffer[] {
  const out: Buffer[] = [frame(0, [bson({ t: 'snapshot', v: FORMAT_VERSION, gen, seq })])]
  let total = 0
  for (const c of state.collections) {
    out.push(
      frame(0, [bson({ t: 'coll', db: c.db, name: c.name, options: c.options ?? {}, indexes: c.indexes ?? [] })])
    )
    let parts: Uint8Array[] = []
    let bytes = 0
    const flush = (): void => {
      if (parts.length === 0) return
      out.push(frame(0, [bson({ t: 'docs', db: c.db, coll: c.name, n: parts.length }), ...parts]))
      parts = []
      bytes = 0
    }
    for (const d of c.docs) {
      const b = bson(d)
      parts.push(b)
      bytes += b.byteLength
      total++
      if (bytes >= CHUNK_BYTES) flush()
    }
    flush()
  }
  out.push(frame(0, [bson({ t: 'end', collections: state.collections.length, docs: total })]))
  return out
}

/** Writes `records` to `file` and fsyncs it; the caller renames it into place. */
export async function writeSnapshotFile (file: string, records: readonly Buffer[]): Promise<void> {
  const fh = await fsp.open(file, 'w')
  try {
    let batch: Buffer[] = []
    let bytes = 0
    for (const r of records) {
      batch.push(r)
      bytes += r.length
      if (bytes >= 8 * CHUNK_BYTES) {
        await fh.writev(batch)
        batch = []
        bytes = 0
      }
    }
    if (batch.length > 0) await fh.writev(batch)
    await fh.sync()
  } finally {
    await fh.close()
  }
}

export interface LoadedSnapshot {
  builder: StateBuilder
  gen: number
  seq: number
}

export async function readSnapshotFile (file: string): Promise<LoadedSnapshot> {
  const buf = await fsp.readFile(file)
  const corrupt = (why: string): Error =>
    new Error(
      `devdb storage: snapshot ${file} is corrupt (${why}); refusing to start. Restore the dbPath from a backup or remove the file to fall back to the journals.`
    )
  const scan = scanRecords(buf)
  if (scan.damage !== undefined) throw corrupt(`${scan.damage.problem} record at byte ${scan.damage.offset}`)
  const [head, ...rest] = scan.records
  const h = head?.docs[0]
  if (h?.t !== 'snapshot' || h.v !== FORMAT_VERSION) throw corrupt('missing header')
  const builder = new StateBuilder()
  let sawEnd = false
  let docs = 0
  for (const r of rest) {
    const [meta, ...body] = r.docs
    if (sawEnd || meta === undefined) throw corrupt('records after end')
    if (meta.t === 'coll') {
      builder.loadCollection({ db: meta.db, name: meta.name, options: meta.options, indexes: meta.indexes, docs: [] })
    } else if (meta.t === 'docs') {
      if (body.length !== meta.n) throw corrupt('document count mismatch')
      builder.addDocs(meta.db, meta.coll, body)
      docs += body.length
    } else if (meta.t === 'end') {
      if (meta.docs !== docs) throw corrupt('document total mismatch')
      sawEnd = true
    } else throw corrupt(`unknown record ${String(meta.t)}`)
  }
  if (!sawEnd) throw corrupt('missing end record')
  return { builder, gen: Number(h.gen), seq: Number(h.seq) }
}
