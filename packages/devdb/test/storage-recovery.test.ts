import t from 'tap'
import { promises as fsp } from 'node:fs'
import * as path from 'node:path'
import { openDurableStore } from '../src/storage/durable-store.js'
import { scanRecords } from '../src/storage/record-codec.js'
import { docsOf, put, tempDir } from './fixtures/durability/store-helpers.js'

const JOURNAL = 'journal-00000000.log'

/** A dbPath holding `n` single-document commits to app.c, closed cleanly. */
async function filled (t: Parameters<typeof tempDir>[0], n: number): Promise<string> {
  const dir = await tempDir(t)
  const { store } = await openDurableStore(dir)
  for (let i = 0; i < n; i++) await store.commit([put('c', { _id: i, text: `document number ${i}` })])
  await store.close()
  return dir
}

async function recordOffsets (file: string): Promise<number[]> {
  return scanRecords(await fsp.readFile(file)).records.map((r) => r.end)
}

t.test('a torn last record is truncated away', async (t) => {
  const dir = await filled(t, 5)
  const file = path.join(dir, JOURNAL)
  const size = (await fsp.stat(file)).size
  await fsp.truncate(file, size - 3) // the last write was cut short by a crash
  const { store, state } = await openDurableStore(dir)
  t.same(
    docsOf(state, 'c')?.map((d) => d._id),
    [0, 1, 2, 3],
    'every complete record kept, the torn one dropped'
  )
  t.equal(store.recovery.truncatedBytes, size - 3 - (await recordOffsets(file)).at(-1)!, 'report says how much was cut')
  t.equal((await fsp.stat(file)).size, (await recordOffsets(file)).at(-1), 'file truncated to the valid prefix')
  // New commits append after the valid prefix and survive the next restart.
  await store.commit([put('c', { _id: 'after' })])
  await store.close()
  const again = await openDurableStore(dir)
  t.teardown(() => again.store.close())
  t.same(
    docsOf(again.state, 'c')?.map((d) => d._id),
    [0, 1, 2, 3, 'after']
  )
  t.equal(again.store.recovery.truncatedBytes, 0)
})

t.test('a header-only fragment and appended garbage are tolerated', async (t) => {
  for (const garbage of [
    Buffer.from([0xde, 0xc0, 0xd0, 0xdb, 1, 2]),
    Buffer.alloc(4096, 0),
    Buffer.from('garbage that is not a record at all')
  ]) {
    const dir = await filled(t, 3)
    await fsp.appendFile(path.join(dir, JOURNAL), garbage)
    const { store, state } = await openDurableStore(dir)
    t.same(
      docsOf(state, 'c')?.map((d) => d._id),
      [0, 1, 2],
      `garbage of ${garbage.length} bytes dropped`
    )
    t.equal(store.recovery.truncatedBytes, garbage.length)
    await store.close()
  }
})

t.test('corruption in the middle of the journal refuses to start', async (t) => {
  const dir = await filled(t, 5)
  const file = path.join(dir, JOURNAL)
  const ends = await recordOffsets(file)
  const buf = await fsp.readFile(file)
  buf[ends[1] + 30] ^= 0xff // a byte inside the third record's payload
  await fsp.writeFile(file, buf)
  await t.rejects(openDurableStore(dir), /journal .* is corrupt at byte \d+ \(bad-crc\), followed by intact records/)
  t.equal((await fsp.stat(file)).size, buf.length, 'nothing was truncated')
  // The lock was released: after repairing the file the directory opens again.
  buf[ends[1] + 30] ^= 0xff
  await fsp.writeFile(file, buf)
  const { store, state } = await openDurableStore(dir)
  t.teardown(() => store.close())
  t.equal(docsOf(state, 'c')?.length, 5)
})

t.test('a damaged length field in the middle is refused too', async (t) => {
  const dir = await filled(t, 4)
  const file = path.join(dir, JOURNAL)
  const ends = await recordOffsets(file)
  const buf = await fsp.readFile(file)
  buf.writeUInt32LE(7, ends[0] + 8) // second record claims a 7-byte payload
  await fsp.writeFile(file, buf)
  await t.rejects(openDurableStore(dir), /corrupt .* followed by intact records/)
})

t.test('damage at the end of an older journal is refused (newer journals follow it)', async (t) => {
  const dir = await filled(t, 3)
  // A second generation as a compaction would leave it before its snapshot exists.
  await fsp.copyFile(path.join(dir, JOURNAL), path.join(dir, 'journal-00000001.log'))
  await fsp.truncate(path.join(dir, JOURNAL), (await fsp.stat(path.join(dir, JOURNAL))).size - 2)
  await t.rejects(openDurableStore(dir), /newer journals follow it/)
})

t.test('a corrupt snapshot refuses to start', async (t) => {
  const dir = await filled(t, 3)
  const { store } = await openDurableStore(dir)
  await store.snapshot(() => ({
    collections: [{ db: 'app', name: 'c', options: {}, indexes: [], docs: [{ _id: 0 }, { _id: 1 }, { _id: 2 }] }]
  }))
  await store.close()
  const snap = path.join(dir, 'snapshot-00000001.bson')
  const buf = await fsp.readFile(snap)
  await fsp.writeFile(snap, buf.subarray(0, buf.length - 5))
  await t.rejects(openDurableStore(dir), /snapshot .* is corrupt/)
})
