import t from 'tap'
import { promises as fsp } from 'node:fs'
import * as path from 'node:path'
import { openDurableStore } from '../src/storage/durable-store.js'
import { scanRecords } from '../src/storage/record-codec.js'
import { docsOf, put, tempDir } from './fixtures/durability/store-helpers.js'

t.test('concurrent commits share fsyncs', async (t) => {
  const dir = await tempDir(t)
  const { store } = await openDurableStore(dir)
  const n = 500
  await Promise.all(Array.from({ length: n }, (_, i) => store.commit([put('c', { _id: i })])))
  t.equal(store.stats.records, n, 'every commit written')
  t.ok(store.stats.fsyncs <= 2, `${n} commits made in one tick cost ${store.stats.fsyncs} fsync(s)`)

  // Commits arriving while a flush is in flight all ride on the next single flush.
  const before = store.stats.fsyncs
  const first = store.commit([put('c', { _id: 'a' })])
  await new Promise((resolve) => setImmediate(resolve)) // the first flush is now in flight
  const more = Array.from({ length: 50 }, (_, i) => store.commit([put('c', { _id: `b${i}` })]))
  await Promise.all([first, ...more])
  t.ok(store.stats.fsyncs - before <= 2, `in-flight + 50 queued commits took ${store.stats.fsyncs - before} fsyncs`)
  await store.close()
  const { store: s2, state } = await openDurableStore(dir)
  t.teardown(() => s2.close())
  t.equal(docsOf(state, 'c')?.length, n + 51)
})

t.test('a commit resolves only once its record is on disk', async (t) => {
  const dir = await tempDir(t)
  const { store } = await openDurableStore(dir)
  t.teardown(() => store.close())
  const seen: number[] = []
  const journal = path.join(dir, 'journal-00000000.log')
  await Promise.all(
    Array.from({ length: 20 }, async (_, i) => {
      await store.commit([put('c', { _id: i, pad: 'x'.repeat(i * 100) })])
      // At resolution time the file must already hold this record.
      const ids = scanRecords(await fsp.readFile(journal)).records.flatMap((r) => r.docs.map((d) => d.doc._id))
      if (ids.includes(i)) seen.push(i)
    })
  )
  t.equal(seen.length, 20, 'every resolved commit was found in the journal file')
})

t.test('commits are written in call order', async (t) => {
  const dir = await tempDir(t)
  const { store } = await openDurableStore(dir)
  const ps: Array<Promise<void>> = []
  for (let i = 0; i < 100; i++) {
    ps.push(store.commit([put('c', { _id: 1, v: i })]))
    if (i % 7 === 0) await new Promise((resolve) => setImmediate(resolve))
  }
  await Promise.all(ps)
  await store.close()
  const { store: s2, state } = await openDurableStore(dir)
  t.teardown(() => s2.close())
  t.same(docsOf(state, 'c'), [{ _id: 1, v: 99 }], 'the last write wins after replay')
})

t.test('group commit throughput (benchmark)', async (t) => {
  const dir = await tempDir(t)
  const { store } = await openDurableStore(dir)
  t.teardown(() => store.close())
  // 64 concurrent writers, each waiting for its own acknowledgement before the next write,
  // like 64 driver connections each doing insertOne in a loop.
  const writers = 64
  const perWriter = 60
  const start = process.hrtime.bigint()
  await Promise.all(
    Array.from({ length: writers }, async (_, w) => {
      for (let i = 0; i < perWriter; i++) {
        await store.commit([put('bench', { _id: `${w}-${i}`, payload: 'x'.repeat(200) })])
      }
    })
  )
  const secs = Number(process.hrtime.bigint() - start) / 1e9
  const total = writers * perWriter
  const rate = Math.round(total / secs)
  t.comment(
    `group commit: ${total} acknowledged commits in ${secs.toFixed(2)}s = ${rate} commits/s with ${store.stats.fsyncs} fsyncs (${(total / store.stats.fsyncs).toFixed(1)} commits per fsync)`
  )
  t.ok(store.stats.fsyncs < total / 4, 'batching actually happened')

  // One writer alone pays one fsync per commit: the baseline that group commit beats.
  const solo = 200
  const s0 = process.hrtime.bigint()
  for (let i = 0; i < solo; i++) await store.commit([put('bench', { _id: `solo-${i}` })])
  const soloSecs = Number(process.hrtime.bigint() - s0) / 1e9
  t.comment(`sequential single writer: ${Math.round(solo / soloSecs)} commits/s`)
  t.pass('benchmark ran')
})
