import t from 'tap'
import { promises as fsp } from 'node:fs'
import * as path from 'node:path'
import { Binary, Decimal128, Long, ObjectId, Timestamp } from 'bson'
import { openDurableStore } from '../src/storage/durable-store.js'
import { idKey } from '../src/storage/state-builder.js'
import { docsOf, put, tempDir } from './fixtures/durability/store-helpers.js'

t.test('every entry kind survives close and reopen', async (t) => {
  const dir = await tempDir(t)
  const oid = new ObjectId()
  {
    const { store, state } = await openDurableStore(dir)
    t.same(state.collections, [], 'a new dbPath starts empty')
    await store.commit([
      { t: 'createCollection', db: 'app', coll: 'users', options: { validator: { a: { $exists: true } } } }
    ])
    await store.commit([
      put('users', {
        _id: oid,
        name: 'ann',
        n: Long.fromString('9007199254740993'),
        dec: Decimal128.fromString('1.10'),
        bin: new Binary(Buffer.from([1, 2, 3])),
        ts: new Timestamp({ t: 5, i: 1 }),
        when: new Date(1700000000000)
      }),
      put('users', { _id: 2, name: 'bob' }),
      put('users', { _id: 'three', name: 'cy' })
    ])
    await store.commit([
      { t: 'createIndex', db: 'app', coll: 'users', index: { name: 'name_1', key: { name: 1 }, unique: true } }
    ])
    await store.commit([put('users', { _id: 2, name: 'bob2' })]) // replace keeps natural order
    await store.commit([{ t: 'del', db: 'app', coll: 'users', id: 'three' }])
    await store.commit([
      put('logs', { _id: 1 }),
      { t: 'createIndex', db: 'app', coll: 'logs', index: { name: 'x_1', key: { x: 1 } } }
    ])
    await store.commit([{ t: 'dropIndex', db: 'app', coll: 'logs', name: 'x_1' }])
    await store.commit([put('gone', { _id: 1 }), { t: 'dropCollection', db: 'app', coll: 'gone' }])
    await store.commit([
      put('c', { _id: 1 }, 'other'),
      put('d', { _id: 1 }, 'other'),
      { t: 'dropDatabase', db: 'other' }
    ])
    await store.close()
  }
  const { store, state } = await openDurableStore(dir)
  t.teardown(() => store.close())
  t.same(
    state.collections.map((c) => `${c.db}.${c.name}`),
    ['app.users', 'app.logs']
  )
  const users = state.collections[0]
  t.same(users.options, { validator: { a: { $exists: true } } })
  t.same(users.indexes, [{ name: 'name_1', key: { name: 1 }, unique: true }])
  t.same(
    users.docs.map((d) => d._id),
    [oid, 2],
    'deleted doc gone, replaced doc kept its place'
  )
  t.equal(users.docs[1].name, 'bob2')
  const ann = users.docs[0]
  t.ok(ann._id instanceof ObjectId && ann._id.equals(oid), 'ObjectId round-trips')
  t.equal(String(ann.n), '9007199254740993', 'a Long beyond 2^53 keeps every digit')
  t.equal(String(ann.dec), '1.10')
  t.same([...(ann.bin as Binary).buffer], [1, 2, 3])
  t.equal((ann.when as Date).getTime(), 1700000000000)
  t.same(state.collections[1].indexes, [], 'dropped index gone')
})

t.test('_id equality is by BSON value', async (t) => {
  t.equal(idKey(1), idKey(1.0), 'int 1 and double 1.0 are the same _id (as in MongoDB)')
  t.not(idKey(1), idKey('1'))
  t.equal(idKey({ a: 1, b: 2 }), idKey({ a: 1, b: 2 }))
  t.not(idKey({ a: 1, b: 2 }), idKey({ b: 2, a: 1 }), 'field order matters for embedded _id, as in MongoDB')
  const dir = await tempDir(t)
  const { store } = await openDurableStore(dir)
  const oid = new ObjectId()
  await store.commit([put('c', { _id: oid, v: 1 })])
  await store.commit([put('c', { _id: new ObjectId(oid.toHexString()), v: 2 })])
  await store.close()
  const { store: s2, state } = await openDurableStore(dir)
  t.teardown(() => s2.close())
  t.same(
    docsOf(state, 'c')?.map((d) => d.v),
    [2],
    'an equal ObjectId replaces the document'
  )
})

t.test('a commit that cannot be serialized is rejected and does not poison the store', async (t) => {
  const dir = await tempDir(t)
  const { store } = await openDurableStore(dir)
  const cyclic: Record<string, unknown> = { _id: 1 }
  cyclic.self = cyclic
  await t.rejects(store.commit([put('c', cyclic)]))
  await store.commit([put('c', { _id: 2 })])
  await store.close()
  const { store: s2, state } = await openDurableStore(dir)
  t.teardown(() => s2.close())
  t.same(
    docsOf(state, 'c')?.map((d) => d._id),
    [2]
  )
})

t.test('lock file: a second open is refused, a stale lock is taken over', async (t) => {
  const dir = await tempDir(t)
  const { store } = await openDurableStore(dir)
  t.equal((await fsp.readFile(path.join(dir, 'devdb.lock'), 'utf8')).trim(), String(process.pid))
  await t.rejects(openDurableStore(dir), { code: 98, codeName: 'DBPathInUse', message: /in use/ })
  await store.close()
  await t.rejects(fsp.access(path.join(dir, 'devdb.lock')), 'close removes the lock')

  // A lock of a live foreign process (pid 1 always exists) refuses.
  await fsp.writeFile(path.join(dir, 'devdb.lock'), '1\n')
  await t.rejects(openDurableStore(dir), { code: 98 })
  // A dead pid is stale: taken over.
  await fsp.writeFile(path.join(dir, 'devdb.lock'), '2147483646\n')
  const reopened = await openDurableStore(dir)
  t.equal((await fsp.readFile(path.join(dir, 'devdb.lock'), 'utf8')).trim(), String(process.pid))
  await reopened.store.close()
})

t.test('commit after close is rejected', async (t) => {
  const dir = await tempDir(t)
  const { store } = await openDurableStore(dir)
  await store.close()
  await t.rejects(store.commit([put('c', { _id: 1 })]), /closed/)
})
