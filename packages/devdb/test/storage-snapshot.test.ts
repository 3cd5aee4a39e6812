import t from 'tap'
import { promises as fsp } from 'node:fs'
import * as path from 'node:path'
import { openDurableStore, type SnapshotStep } from '../src/storage/durable-store.js'
import { StateBuilder } from '../src/storage/state-builder.js'
import type { JournalEntry, StoredState } from '../src/storage/types.js'
import { crashCopy, docsOf, fileNames, put, tempDir } from './fixtures/durability/store-helpers.js'

/** The engine's side in these tests: memory mutated synchronously, then the commit awaited. */
class Memory {
  readonly builder = new StateBuilder()
  write (store: { commit: (e: JournalEntry[]) => Promise<void> }, entries: JournalEntry[]): Promise<void> {
    for (const e of entries) this.builder.apply(e)
    return store.commit(entries)
  }

  state (): StoredState {
    return this.builder.toState()
  }
}

const ids = (s: StoredState, coll = 'c'): unknown[] => docsOf(s, coll)?.map((d) => d._id) ?? []

t.test('snapshot, more commits, reopen', async (t) => {
  const dir = await tempDir(t)
  const mem = new Memory()
  const { store } = await openDurableStore(dir)
  for (let i = 0; i < 10; i++) await mem.write(store, [put('c', { _id: i })])
  await mem.write(store, [
    { t: 'createIndex', db: 'app', coll: 'c', index: { name: 'a_1', key: { a: 1 }, unique: true } }
  ])
  await store.snapshot(() => mem.state())
  t.same(
    await fileNames(dir),
    ['devdb.lock', 'snapshot-00000001.bson'],
    'old journal deleted; the new one is created by the next commit'
  )
  await mem.write(store, [{ t: 'del', db: 'app', coll: 'c', id: 0 }, put('c', { _id: 10 })])
  await store.snapshot(() => mem.state())
  await mem.write(store, [put('c', { _id: 11 })])
  t.same(await fileNames(dir), ['devdb.lock', 'journal-00000002.log', 'snapshot-00000002.bson'])
  await store.close()
  const { store: s2, state } = await openDurableStore(dir)
  t.teardown(() => s2.close())
  t.same(ids(state), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11])
  t.same(state.collections[0].indexes, [{ name: 'a_1', key: { a: 1 }, unique: true }])
  t.equal(s2.recovery.snapshotGen, 2)
  t.same(s2.recovery.journalsReplayed, [2])
})

t.test('commits made while a snapshot is being written are not lost', async (t) => {
  const dir = await tempDir(t)
  const mem = new Memory()
  const { store } = await openDurableStore(dir)
  for (let i = 0; i < 50; i++) await mem.write(store, [put('c', { _id: i, pad: 'x'.repeat(1000) })])
  // Queued (not yet written) commits at the moment of the snapshot, then more during it.
  const queued = [mem.write(store, [put('c', { _id: 'q1' })]), mem.write(store, [put('c', { _id: 'q2' })])]
  const snap = store.snapshot(() => mem.state())
  const during = Array.from({ length: 20 }, (_, i) => mem.write(store, [put('c', { _id: `d${i}` })]))
  await Promise.all([...queued, snap, ...during])
  await store.close()
  const { store: s2, state } = await openDurableStore(dir)
  t.teardown(() => s2.close())
  t.same(ids(state), ids(mem.state()), 'reopened state equals the memory state')
  t.equal(ids(state).length, 72)
})

for (const crashAt of ['switched', 'temp-written', 'renamed', 'cleaned'] as SnapshotStep[]) {
  t.test(`crash at snapshot step "${crashAt}" recovers every acknowledged commit`, async (t) => {
    const dir = await tempDir(t)
    const crashed = await tempDir(t, 'devdb-crashed-')
    const mem = new Memory()
    let layout: string[] = []
    const acked: unknown[] = []
    const { store } = await openDurableStore(dir, {
      onSnapshotStep: async (step) => {
        if (step !== crashAt) return
        // Acknowledged commits that land in the new journal while the snapshot is unfinished.
        await mem.write(store, [put('c', { _id: `during-${step}` })])
        acked.push(`during-${step}`)
        await crashCopy(dir, crashed)
        layout = await fileNames(crashed)
      }
    })
    for (let i = 0; i < 20; i++) {
      await mem.write(store, [put('c', { _id: i })])
      acked.push(i)
    }
    await mem.write(store, [{ t: 'del', db: 'app', coll: 'c', id: 3 }])
    acked.splice(acked.indexOf(3), 1)
    await store.snapshot(() => mem.state())
    await store.close()

    if (crashAt === 'temp-written') {
      t.ok(layout.includes('snapshot-00000001.bson.tmp'), 'a temp snapshot was left behind')
    }
    const { store: s2, state } = await openDurableStore(crashed)
    t.teardown(() => s2.close())
    t.same(ids(state), acked, `layout ${layout.join(',')} recovered to exactly the acknowledged documents`)
    t.notOk(
      (await fileNames(crashed)).some((n) => n.endsWith('.tmp')),
      'leftover temp file removed'
    )
  })
}

t.test('automatic compaction (compactEveryBytes) keeps everything', async (t) => {
  const dir = await tempDir(t)
  const { store } = await openDurableStore(dir, { compactEveryBytes: 20_000 })
  const expected: number[] = []
  for (let i = 0; i < 400; i++) {
    const entries: JournalEntry[] = [put('c', { _id: i % 150, v: i, pad: 'y'.repeat(100) })]
    if (i % 10 === 9) entries.push({ t: 'del', db: 'app', coll: 'c', id: (i % 150) - 5 })
    await store.commit(entries)
  }
  // Model of the final state, computed independently.
  const model = new Map<number, number>()
  for (let i = 0; i < 400; i++) {
    model.set(i % 150, i)
    if (i % 10 === 9) model.delete((i % 150) - 5)
  }
  for (const k of model.keys()) expected.push(k)
  t.ok(store.journalGeneration >= 3, `compacted repeatedly (generation ${store.journalGeneration})`)
  t.same(store.compactionErrors, [])
  await store.close()
  const names = await fileNames(dir)
  t.ok(names.filter((n) => n.startsWith('journal-')).length <= 2, `old journals deleted: ${names.join(',')}`)
  const { store: s2, state } = await openDurableStore(dir)
  t.teardown(() => s2.close())
  const got = docsOf(state, 'c') ?? []
  t.same(new Set(got.map((d) => d._id)), new Set(expected))
  t.ok(
    got.every((d) => model.get(d._id as number) === d.v),
    'every document has its latest value'
  )
})

t.test('leftover temp snapshot with no journal switch is ignored', async (t) => {
  const dir = await tempDir(t)
  const { store } = await openDurableStore(dir)
  await store.commit([put('c', { _id: 1 })])
  await store.close()
  await fsp.writeFile(path.join(dir, 'snapshot-00000001.bson.tmp'), 'partial')
  const { store: s2, state } = await openDurableStore(dir)
  t.teardown(() => s2.close())
  t.same(ids(state), [1])
  t.same(await fileNames(dir), ['devdb.lock', 'journal-00000000.log'])
})
