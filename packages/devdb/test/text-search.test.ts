import t from 'tap'
import { MongoClient, type Collection, type Document } from 'mongodb'
import { startDevDb } from '../src/index.js'

const db = await startDevDb()
const client = new MongoClient(db.uri)
await client.connect()
t.teardown(async () => {
  await client.close()
  await db.stop()
})
const database = client.db('textsearch')

/** The articles of MongoDB's $text documentation. */
async function articles (name: string): Promise<Collection> {
  const c = database.collection(name)
  await c.insertMany([
    { _id: 1, subject: 'coffee', author: 'xyz', views: 50 },
    { _id: 2, subject: 'Coffee Shopping', author: 'efg', views: 5 },
    { _id: 3, subject: 'Baking a cake', author: 'abc', views: 90 },
    { _id: 4, subject: 'baking', author: 'xyz', views: 100 },
    { _id: 5, subject: 'Café Con Leche', author: 'abc', views: 200 },
    { _id: 6, subject: 'Сырники', author: 'jkl', views: 80 },
    { _id: 7, subject: 'coffee and cream', author: 'efg', views: 10 },
    { _id: 8, subject: 'Cafe con Leche', author: 'xyz', views: 10 }
  ] as Document[])
  await c.createIndex({ subject: 'text' })
  return c
}

const ids = (docs: Document[]): unknown[] => docs.map((d) => d._id).sort()

t.test('createIndex text and listIndexes', async (t) => {
  const c = await articles('listing')
  const ix = (await c.listIndexes().toArray()).find((i) => i.name === 'subject_text')
  t.same(ix, {
    v: 2,
    key: { _fts: 'text', _ftsx: 1 },
    name: 'subject_text',
    weights: { subject: 1 },
    default_language: 'english',
    language_override: 'language',
    textIndexVersion: 3
  })
})

t.test('find with $text: terms, stemming, phrases, negation, diacritics', async (t) => {
  const c = await articles('find')
  const find = async (search: string, extra: Document = {}): Promise<unknown[]> =>
    ids(await c.find({ $text: { $search: search, ...extra } }).toArray())
  t.same(await find('coffee'), [1, 2, 7])
  t.same(await find('bake coffee cake'), [1, 2, 3, 4, 7], 'OR of stemmed terms')
  t.same(await find('"coffee shop"'), [2], 'phrase')
  t.same(await find('coffee -shop'), [1, 7], 'negated term')
  t.same(await find('leche'), [5, 8], 'diacritic-insensitive by default')
  t.same(await find('CAFÉ', { $diacriticSensitive: true }), [5])
  t.same(await find('Coffee', { $caseSensitive: true }), [2])
  t.same(await find('сырники'), [6], 'Cyrillic case folding')
  t.same(await find('the and'), [], 'only stop words')
  t.same(
    ids(await c.find({ $text: { $search: 'coffee' }, views: { $gt: 20 } }).toArray()),
    [1],
    '$text combined with other conditions'
  )
})

t.test('textScore in projection and sort', async (t) => {
  const c = await articles('score')
  const docs = await c
    .find({ $text: { $search: 'coffee' } }, { projection: { score: { $meta: 'textScore' }, subject: 1 } })
    .sort({ score: { $meta: 'textScore' } })
    .toArray()
  t.same(docs[0], { _id: 1, subject: 'coffee', score: 1 }, 'best match first')
  // Ties have no defined order in MongoDB.
  t.same(
    docs
      .slice(1)
      .map((d) => [d._id, d.score])
      .sort(),
    [
      [2, 0.75],
      [7, 0.75]
    ]
  )
})

t.test('weights rank the heavier field first', async (t) => {
  const c = database.collection('weights')
  await c.insertMany([
    { _id: 'body', title: 'other', body: 'mongodb tips' },
    { _id: 'title', title: 'mongodb', body: 'other' }
  ] as Document[])
  await c.createIndex({ title: 'text', body: 'text' }, { weights: { title: 10 } })
  const docs = await c
    .find({ $text: { $search: 'mongodb' } }, { projection: { s: { $meta: 'textScore' } } })
    .sort({ s: { $meta: 'textScore' } })
    .toArray()
  t.same(
    docs.map((d) => d._id),
    ['title', 'body']
  )
  t.equal(docs[0].s, 11)
})

t.test('aggregate with $match $text', async (t) => {
  const c = await articles('agg')
  const out = await c
    .aggregate([
      { $match: { $text: { $search: 'cake coffee' } } },
      { $project: { score: { $meta: 'textScore' } } },
      { $sort: { score: -1, _id: 1 } }
    ])
    .toArray()
  t.same(
    out,
    [
      { _id: 1, score: 1 },
      { _id: 3, score: 0.75 },
      { _id: 2, score: 0.75 },
      { _id: 7, score: 0.75 }
    ].sort((a, b) => b.score - a.score || a._id - b._id)
  )
})

t.test('errors', async (t) => {
  const plain = database.collection('plain')
  await plain.insertOne({ subject: 'coffee' })
  await t.rejects(
    plain.find({ $text: { $search: 'coffee' } }).toArray(),
    { code: 27, codeName: 'IndexNotFound' },
    'no text index'
  )
  const c = await articles('errors')
  await t.rejects(c.find({ $text: { $search: 5 } } as Document).toArray(), { code: 14, codeName: 'TypeMismatch' })
  await t.rejects(c.find({ $text: { $search: 'x', $bogus: 1 } } as Document).toArray(), {
    code: 2,
    message: /extra fields in \$text/
  })
  await t.rejects(c.createIndex({ other: 'text' }, { weights: { other: 0 } }), { code: 67 }, 'invalid weights')
})
