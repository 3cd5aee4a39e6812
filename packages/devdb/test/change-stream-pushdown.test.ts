/**
 * A change stream's leading `$match` on an event's metadata is tested before the event is built,
 * and a pipeline that neither reads nor keeps the images and update description gets events
 * without them (pushdown.ts). Neither may change what a stream returns: each pipeline here is
 * compared, event for event (resume tokens included), with the same pipeline behind a
 * `$match: { $expr: true }` that turns both off.
 */
import t from 'tap'
import { BSON, Timestamp, type ChangeStream, type Document } from 'mongodb'
import { setup, mongoError } from './fixtures/devdb-harness.js'
import { planPushdown, queryFields } from '../src/change-streams/pushdown.js'

const h = await setup(t)
const AWAIT = { maxAwaitTimeMS: 50 }
const PLAIN: Document = { $match: { $expr: true } }

t.test('what a pipeline lets the source skip', async (t) => {
  const kinds = planPushdown([
    { $match: { operationType: { $in: ['insert', 'update'] } } },
    { $project: { operationType: 1 } }
  ])
  t.ok(kinds.prefilter?.({ operationType: 'insert' }), 'an insert passes')
  t.notOk(kinds.prefilter?.({ operationType: 'delete' }), 'a delete is dropped unbuilt')
  t.same([...(kinds.needs ?? ['all'])], [], 'nothing costly is read or kept')
  const seq = planPushdown([
    { $match: { $or: [{ 'ns.coll': 'a' }, { 'documentKey._id': 'lease', operationType: 'update' }] } },
    { $project: { operationType: 1, 'updateDescription.updatedFields.seq': 1 } }
  ])
  t.ok(seq.prefilter?.({ ns: { db: 'x', coll: 'b' }, documentKey: { _id: 'lease' }, operationType: 'update' }))
  t.notOk(seq.prefilter?.({ ns: { db: 'x', coll: 'b' }, documentKey: { _id: 'other' }, operationType: 'update' }))
  t.same([...(seq.needs ?? [])], ['updateDescription'], 'the projected update description is built')
  const byDocument = planPushdown([{ $match: { 'fullDocument.keep': true } }, { $project: { operationType: 1 } }])
  t.equal(byDocument.prefilter, undefined, 'a match on the document waits for the document')
  t.same([...(byDocument.needs ?? [])], ['fullDocument'])
  const stored = planPushdown([{ $match: { 'fullDocument.keep': true } }, { $project: { operationType: 1 } }], {
    documentInHead: true
  })
  t.ok(
    stored.prefilter?.({ operationType: 'insert', fullDocument: { keep: true } }),
    "with fullDocument 'default' an insert's document is there to match before the event is built"
  )
  t.notOk(stored.prefilter?.({ operationType: 'update' }), 'and an update has none')
  const noProjection = planPushdown([{ $match: { operationType: 'insert' } }])
  t.ok(noProjection.prefilter !== undefined)
  t.equal(noProjection.needs, undefined, 'without a projection every field is returned, so built')
  const computed = planPushdown([{ $match: { operationType: 'insert' } }, { $addFields: { x: 1 } }])
  t.ok(computed.prefilter !== undefined, 'the leading match still goes first')
  t.equal(computed.needs, undefined, 'another stage may read anything')
  const afterOther = planPushdown([{ $set: { operationType: 'x' } }, { $match: { operationType: 'insert' } }])
  t.equal(afterOther.prefilter, undefined, 'a match after another stage sees that stage’s output')
  const expr = planPushdown([{ $match: { $expr: { $eq: ['$operationType', 'insert'] } } }, { $project: { a: 1 } }])
  t.equal(expr.prefilter, undefined)
  t.equal(expr.needs, undefined)
  t.equal(planPushdown([{ $project: { _id: 0 } }]).needs, undefined, 'an exclusion is not analysed')
  const project = seq.project
  t.ok(project !== undefined, 'matches on the head, then one inclusion: the projection is applied directly')
  t.same(
    project?.({
      _id: { _data: 'x' },
      operationType: 'update',
      ns: { db: 'x', coll: 'b' },
      updateDescription: { updatedFields: { holder: 'y' }, removedFields: [] }
    }),
    { _id: { _data: 'x' }, operationType: 'update', updateDescription: { updatedFields: {} } },
    'in the document’s order, an empty sub-document kept as mongod keeps it'
  )
  const throughTime = planPushdown([{ $project: { 'clusterTime.t': 1 } }]).project
  t.equal(
    throughTime?.({ _id: 1, clusterTime: new Timestamp({ t: 1, i: 1 }) }),
    undefined,
    'a path through a value that is not a document: the pipeline decides'
  )
  t.equal(byDocument.project, undefined, 'a match the prefilter cannot take: no shortcut')
  t.equal(
    planPushdown([{ $project: { ns: 1, 'ns.db': 1 } }]).project,
    undefined,
    'a path collision is left to mingo’s error'
  )
  t.same([...(queryFields({ $and: [{ a: 1 }, { 'b.c': { $gt: 1 } }], $comment: 'x' }) ?? [])], ['a', 'b'])
  t.equal(queryFields({ $where: 'true' }), null)
  t.equal(queryFields({ $or: 'not an array' }), null)
})

async function open (pipeline: Document[], opts: Document = {}): Promise<ChangeStream<any, any>> {
  const cs = h.db.watch(pipeline, { ...AWAIT, ...opts })
  t.teardown(async () => {
    await cs.close()
  })
  t.equal(await cs.tryNext(), null)
  return cs
}

async function drain (cs: ChangeStream<any, any>): Promise<Document[]> {
  const out: Document[] = []
  for (let e = await cs.tryNext(); e !== null; e = await cs.tryNext()) out.push(e)
  return out
}

/** Writes of every kind to two collections, the second holding a counter document as the event log's lease does. */
async function writes (): Promise<void> {
  const a = h.db.collection<any>('pd_a')
  const b = h.db.collection<any>('pd_b')
  await a.insertMany([
    { _id: 1, n: 1, origin: 'me' },
    { _id: 2, n: 2, origin: 'other' },
    { _id: 3, n: 3 }
  ])
  await b.insertOne({ _id: 'lease', seq: 0, holder: 'x' })
  await a.updateOne({ _id: 2 }, { $set: { n: 20 } })
  await b.updateOne({ _id: 'lease' }, { $set: { seq: 3 } })
  await b.updateOne({ _id: 'lease' }, { $set: { holder: 'y' } })
  await a.replaceOne({ _id: 3 }, { n: 30 })
  await a.deleteOne({ _id: 1 })
  const session = h.client.startSession()
  try {
    await session.withTransaction(async () => {
      await a.insertOne({ _id: 4, n: 4 }, { session })
      await b.updateOne({ _id: 'lease' }, { $set: { seq: 4 } }, { session })
    })
  } finally {
    await session.endSession()
  }
}

const PIPELINES: Array<[string, Document[], Document?]> = [
  [
    'the event log’s watch: others’ inserts to one collection, the counter’s moves in another',
    [
      {
        $match: {
          $or: [
            { 'ns.coll': 'pd_a', operationType: 'insert', 'fullDocument.origin': { $ne: 'me' } },
            { 'ns.coll': 'pd_b', 'documentKey._id': 'lease', operationType: 'update' }
          ]
        }
      },
      { $project: { operationType: 1, 'updateDescription.updatedFields.seq': 1 } }
    ]
  ],
  ['kinds only, whole events', [{ $match: { operationType: { $in: ['update', 'replace', 'delete'] } } }]],
  [
    'looked-up documents, projected',
    [{ $match: { operationType: 'update', 'ns.coll': 'pd_a' } }, { $project: { 'fullDocument.n': 1, ns: 1 } }],
    { fullDocument: 'updateLookup' }
  ],
  [
    'a match on looked-up documents (not in the head)',
    [{ $match: { 'fullDocument.n': { $gte: 20 } } }, { $project: { 'fullDocument.n': 1 } }],
    { fullDocument: 'updateLookup' }
  ],
  [
    'a match on inserted documents, whole events',
    [{ $match: { operationType: 'insert', 'fullDocument.n': { $gte: 2 } } }]
  ],
  [
    'a second match on the document',
    [{ $match: { 'documentKey._id': { $gte: 2 } } }, { $match: { 'fullDocument.n': { $gte: 3 } } }]
  ],
  ['transactions', [{ $match: { txnNumber: { $exists: true } } }, { $project: { lsid: 0 } }]]
]

t.test('the same events as without pushdown, tokens included', async (t) => {
  const streams = []
  for (const [label, pipeline, opts] of PIPELINES) {
    streams.push({ label, fast: await open(pipeline, opts), plain: await open([PLAIN, ...pipeline], opts) })
  }
  await writes()
  const seen: Document[][] = []
  for (const { label, fast, plain } of streams) {
    const expected = await drain(plain)
    t.ok(expected.length > 0, `${label}: the plain stream saw events`)
    seen.push(await drain(fast))
    t.same(seen[seen.length - 1], expected, label)
    t.same(
      seen[seen.length - 1].map((e) => Buffer.from(BSON.serialize(e)).toString('hex')),
      expected.map((e) => Buffer.from(BSON.serialize(e)).toString('hex')),
      `${label}: byte for byte (field order too)`
    )
  }
  t.same(
    seen[0].map((e) => [e.operationType, e.updateDescription?.updatedFields?.seq]),
    [
      ['insert', undefined],
      ['insert', undefined],
      ['update', 3],
      ['update', undefined],
      ['insert', undefined],
      ['update', 4]
    ],
    'the log’s watch: each insert but its own, and the counter’s moves with the new value'
  )
  t.same(Object.keys(seen[0][2]).sort(), ['_id', 'operationType', 'updateDescription'])
})

t.test('a required image is still required when the projection drops it', async (t) => {
  const c = h.db.collection<any>('pd_required')
  await c.insertOne({ _id: 1, n: 1 })
  const cs = await open([{ $match: { 'ns.coll': 'pd_required' } }, { $project: { operationType: 1 } }], {
    fullDocument: 'required'
  })
  await c.updateOne({ _id: 1 }, { $set: { n: 2 } })
  t.equal((await mongoError(async () => await cs.next())).code, 47, 'NoMatchingDocument, as mongod')
})

t.test(
  'getMore waits out the changes the leading match drops, as mongod does, instead of answering empty',
  async (t) => {
    const c = h.db.collection<any>('pd_wait')
    await c.insertOne({ _id: 0 })
    const opened = await h.db.command({
      aggregate: 'pd_wait',
      pipeline: [{ $changeStream: {} }, { $match: { operationType: 'delete' } }],
      cursor: {}
    })
    const id = opened.cursor.id
    const getMore = async (maxTimeMS: number): Promise<{ ms: number; batch: Document[]; token: unknown }> => {
      const at = Date.now()
      const res = await h.db.command({ getMore: id, collection: 'pd_wait', maxTimeMS })
      return { ms: Date.now() - at, batch: res.cursor.nextBatch, token: res.cursor.postBatchResumeToken }
    }
    const waiting = getMore(400)
    await new Promise((resolve) => setTimeout(resolve, 50))
    await c.insertOne({ _id: 1 })
    await c.updateOne({ _id: 1 }, { $set: { a: 1 } })
    const quiet = await waiting
    t.same(quiet.batch, [], 'nothing it keeps')
    t.ok(quiet.ms >= 350, `it waited its time out (${quiet.ms} ms) through an insert and an update`)
    // A long wait, so that answering at the change (not at the timeout) shows under any load.
    const next = getMore(5000)
    await new Promise((resolve) => setTimeout(resolve, 50))
    await c.deleteOne({ _id: 1 })
    const got = await next
    t.equal(got.batch.length, 1)
    t.equal(got.batch[0].operationType, 'delete')
    t.ok(got.ms < 4000, `and answers at the first change it keeps, not at its 5 s timeout (${got.ms} ms)`)
    t.not(JSON.stringify(got.token), JSON.stringify(quiet.token), 'the resume token moved past what it stepped over')
    await h.db.command({ killCursors: 'pd_wait', cursors: [id] })
  }
)
