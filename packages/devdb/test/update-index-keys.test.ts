import t, { type Test } from 'tap'
import { Double, type Document } from 'mongodb'
import { setup } from './fixtures/devdb-harness.js'

// An update rewrites only the index entries whose keys it changed (an index whose keys stayed is
// not touched): every index, read alone through a hint, must still find exactly the documents
// whose current values it covers — after updates that leave keys alone, move them, enter and
// leave a partial index, change an array, and after an update refused by a unique index.
const h = await setup(t)
const coll = h.db.collection<any>('index_keys')
await coll.createIndex({ a: 1 })
await coll.createIndex({ u: 1 }, { unique: true })
await coll.createIndex({ p: 1 }, { name: 'p_partial', partialFilterExpression: { p: { $exists: true } } })
await coll.createIndex({ tags: 1 })
await coll.insertMany([
  { _id: 1, a: 10, u: 'one', tags: ['x', 'y'], note: 'n' },
  { _id: 2, a: 20, u: 'two', tags: ['y'], p: 1, note: 'n' }
] as never)

const through = async (index: string, filter: Document): Promise<unknown[]> =>
  (await coll.find(filter).hint(index).sort({ _id: 1 }).toArray()).map((d) => d._id)

async function consistent (t: Test, expected: Record<string, Array<[Document, unknown[]]>>): Promise<void> {
  for (const [index, cases] of Object.entries(expected)) {
    for (const [filter, ids] of cases) t.same(await through(index, filter), ids, `${index} ${JSON.stringify(filter)}`)
  }
}

t.test('an update of an unindexed field leaves every index finding the document', async (t) => {
  await coll.updateOne({ _id: 1 }, { $set: { note: 'changed' } })
  await consistent(t, {
    a_1: [[{ a: 10 }, [1]]],
    u_1: [[{ u: 'one' }, [1]]],
    tags_1: [
      [{ tags: 'x' }, [1]],
      [{ tags: 'y' }, [1, 2]]
    ],
    p_partial: [[{ p: { $exists: true } }, [2]]]
  })
})

t.test('changed keys move; the others stay', async (t) => {
  await coll.updateOne({ _id: 1 }, { $set: { a: 11, tags: ['y', 'z'], p: 5 } })
  await consistent(t, {
    a_1: [
      [{ a: 10 }, []],
      [{ a: 11 }, [1]]
    ],
    u_1: [[{ u: 'one' }, [1]]],
    tags_1: [
      [{ tags: 'x' }, []],
      [{ tags: 'y' }, [1, 2]],
      [{ tags: 'z' }, [1]]
    ],
    p_partial: [
      [{ p: { $exists: true } }, [1, 2]],
      [{ p: 5 }, [1]]
    ]
  })
  await coll.updateOne({ _id: 2 }, { $unset: { p: '' } })
  await consistent(t, { p_partial: [[{ p: { $exists: true } }, [1]]] })
})

t.test('an equal value of another type is a new key: the entry holds the value', async (t) => {
  await coll.updateOne({ _id: 1 }, { $set: { a: new Double(11) } })
  await consistent(t, { a_1: [[{ a: 11 }, [1]]] })
  const covered = await coll
    .find({ a: 11 }, { projection: { _id: 0, a: 1 } })
    .hint('a_1')
    .toArray()
  t.same(covered, [{ a: 11 }])
})

t.test('an update a unique index refuses changes no index', async (t) => {
  await t.rejects(coll.updateOne({ _id: 2 }, { $set: { a: 99, u: 'one', tags: ['q'] } }), { code: 11000 })
  await consistent(t, {
    a_1: [
      [{ a: 20 }, [2]],
      [{ a: 99 }, []]
    ],
    u_1: [
      [{ u: 'two' }, [2]],
      [{ u: 'one' }, [1]]
    ],
    tags_1: [
      [{ tags: 'q' }, []],
      [{ tags: 'y' }, [1, 2]]
    ]
  })
})

t.test('in a transaction, at its commit too', async (t) => {
  const session = h.client.startSession()
  try {
    await session.withTransaction(async () => {
      await coll.updateOne({ _id: 2 }, { $set: { a: 21, note: 'txn' } }, { session })
      await coll.updateOne({ _id: 1 }, { $set: { note: 'txn' } }, { session })
    })
  } finally {
    await session.endSession()
  }
  await consistent(t, {
    a_1: [
      [{ a: 20 }, []],
      [{ a: 21 }, [2]],
      [{ a: 11 }, [1]]
    ],
    u_1: [
      [{ u: 'one' }, [1]],
      [{ u: 'two' }, [2]]
    ]
  })
})
