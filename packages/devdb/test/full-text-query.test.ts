import t from 'tap'
import { setup, mongoError } from './fixtures/devdb-harness.js'

const h = await setup(t)
const c = h.db.collection('articles')
await c.insertMany([
  { _id: 1 as never, title: 'Running shoes', body: 'The runners ran quickly in their new shoes', tag: 'sport' },
  { _id: 2 as never, title: 'Coffee guide', body: 'How to brew coffee at home', tag: 'food' },
  { _id: 3 as never, title: 'Marathon', body: 'Running a marathon needs training and good shoes', tag: 'sport' },
  { _id: 4 as never, title: 'Tea', body: 'Green tea and black tea', tag: 'food' }
])

t.test('$text without a text index fails with 27', async (t) => {
  const e = await mongoError(async () => await c.find({ $text: { $search: 'shoes' } }).toArray())
  t.equal(e.code, 27)
  t.equal(e.message, 'text index required for $text query')
})

t.test('text index listing', async (t) => {
  const name = await c.createIndex({ title: 'text', body: 'text' }, { weights: { title: 5 } })
  t.equal(name, 'title_text_body_text')
  const ix = (await c.listIndexes().toArray()).find((i) => i.name === name)
  t.same(ix?.key, { _fts: 'text', _ftsx: 1 })
  t.same(ix?.weights, { body: 1, title: 5 })
  t.equal(ix?.default_language, 'english')
  const e = await mongoError(async () => await c.createIndex({ tag: 'text' }))
  t.equal(e.code, 85, 'only one text index per collection')
})

t.test('terms, stemming, phrases, negation, filters', async (t) => {
  const ids = async (f: object): Promise<unknown[]> => (await c.find(f).sort({ _id: 1 }).toArray()).map((d) => d._id)
  t.same(await ids({ $text: { $search: 'run' } }), [1, 3], 'stemming: run matches running/runners')
  t.same(await ids({ $text: { $search: 'SHOES coffee' } }), [1, 2, 3])
  t.same(await ids({ $text: { $search: '"good shoes"' } }), [3])
  t.same(await ids({ $text: { $search: 'shoes -marathon' } }), [1])
  t.same(await ids({ $text: { $search: 'the and' } }), [], 'stop words alone match nothing')
  t.same(await ids({ $text: { $search: 'shoes' }, _id: { $gt: 1 } }), [3])
})

t.test('textScore in projection and sort, find and aggregate', async (t) => {
  const r = await c
    .find({ $text: { $search: 'shoes running' } }, { projection: { score: { $meta: 'textScore' }, title: 1 } })
    .sort({ score: { $meta: 'textScore' } })
    .toArray()
  t.equal(r.length, 2)
  t.ok(r[0].score >= r[1].score && r[1].score > 0)
  t.equal(r[0]._id, 1, 'title weight 5 ranks the title match first')
  const a = await c
    .aggregate([
      { $match: { $text: { $search: 'tea' } } },
      { $project: { title: 1, s: { $meta: 'textScore' } } },
      { $sort: { s: -1 } }
    ])
    .toArray()
  t.equal(a.length, 1)
  t.equal(a[0].title, 'Tea')
  t.ok(a[0].s > 0)
  t.notOk('__devdb_textScore' in a[0])
  const e = await mongoError(
    async () => await c.aggregate([{ $match: { tag: 'food' } }, { $match: { $text: { $search: 'tea' } } }]).toArray()
  )
  t.equal(e.code, 17313)
})
