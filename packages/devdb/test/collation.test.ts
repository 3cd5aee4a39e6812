import t from 'tap'
import type { Document } from 'mongodb'
import { setup, mongoError } from './fixtures/devdb-harness.js'

const h = await setup(t)
const ci = { locale: 'en_US', strength: 2 }
const ixName = (ex: Document): string | undefined => {
  const walk = (p: Document | undefined): string | undefined =>
    p === undefined ? undefined : p.stage === 'IXSCAN' || p.stage === 'COUNT_SCAN' ? p.indexName : walk(p.inputStage)
  return walk(ex.queryPlanner.winningPlan)
}

t.test('a case-insensitive unique index refuses A@x.io beside a@x.io', async (t) => {
  const users = h.db.collection('users')
  t.equal(await users.createIndex({ email: 1 }, { unique: true, collation: ci }), 'email_1')
  await users.insertOne({ email: 'a@x.io' })
  const e = await mongoError(async () => await users.insertOne({ email: 'A@x.io' }))
  t.equal(e.code, 11000)
  t.match(e.message, /index: email_1 collation: \{ locale: "en_US", .*strength: 2.* dup key: \{ email: "A@x.io" \}/)
  await users.insertOne({ email: 'b@x.io' })
  const u = await mongoError(async () => await users.updateOne({ email: 'b@x.io' }, { $set: { email: 'A@X.IO' } }))
  t.equal(u.code, 11000, 'on update too')
  const list = await users.listIndexes().toArray()
  t.same(
    list[1],
    {
      v: 2,
      key: { email: 1 },
      name: 'email_1',
      unique: true,
      collation: {
        locale: 'en_US',
        caseLevel: false,
        caseFirst: 'off',
        strength: 2,
        numericOrdering: false,
        alternate: 'non-ignorable',
        maxVariable: 'punct',
        normalization: false,
        backwards: false,
        version: '57.1'
      }
    },
    'listIndexes shows the normalized collation'
  )
})

t.test('the index serves a query only with a matching collation', async (t) => {
  const users = h.db.collection('users')
  t.same(
    (await users.find({ email: 'A@X.IO' }).collation(ci).toArray()).map((d) => d.email),
    ['a@x.io']
  )
  t.equal(ixName(await users.find({ email: 'A@X.IO' }).collation(ci).explain('queryPlanner')), 'email_1')
  t.same(await users.find({ email: 'A@X.IO' }).toArray(), [], 'the simple collation matches bytes')
  t.same(
    ixName(await users.find({ email: 'A@X.IO' }).explain('queryPlanner')),
    undefined,
    'and may not use the collated index'
  )
  t.equal(
    ixName(await users.find({ email: 'A@X.IO' }).collation({ locale: 'en_US', strength: 1 }).explain('queryPlanner')),
    undefined,
    'nor may another collation'
  )
  t.equal(await users.countDocuments({ email: 'B@X.IO' }, { collation: ci }), 1)
})

t.test('find, sort, count and distinct follow the collation', async (t) => {
  const c = h.db.collection('names')
  await c.insertMany([{ n: 'b' }, { n: 'A' }, { n: 'a' }, { n: 'B' }, { n: 'é' }, { n: 'e' }, { n: '10' }, { n: '9' }])
  const sorted = async (collation?: {
    locale: string
    caseFirst?: 'upper'
    numericOrdering?: boolean
  }): Promise<string[]> => (await c.find({}, { collation }).sort({ n: 1 }).toArray()).map((d) => d.n)
  t.same(await sorted(), ['10', '9', 'A', 'B', 'a', 'b', 'e', 'é'], 'simple: code units')
  t.same(await sorted({ locale: 'en' }), ['10', '9', 'a', 'A', 'b', 'B', 'e', 'é'])
  t.same(await sorted({ locale: 'en', caseFirst: 'upper' }), ['10', '9', 'A', 'a', 'B', 'b', 'e', 'é'])
  t.same(await sorted({ locale: 'en', numericOrdering: true }), ['9', '10', 'a', 'A', 'b', 'B', 'e', 'é'])
  t.equal(
    await c.countDocuments({ n: 'E' }, { collation: { locale: 'fr', strength: 1 } }),
    2,
    'strength 1 ignores case and accents'
  )
  t.equal(
    await c.countDocuments({ n: 'E' }, { collation: { locale: 'fr', strength: 2 } }),
    1,
    'strength 2 ignores case only'
  )
  t.equal((await h.db.command({ count: 'names', query: { n: { $in: ['A', 'E'] } }, collation: ci })).n, 3)
  const folded = await c.distinct('n', { n: { $lt: 'c' } }, { collation: ci })
  t.same(
    folded.map((s: string) => s.toLowerCase()),
    ['10', '9', 'a', 'b'],
    'distinct folds collation-equal strings, in collation order'
  )
  t.equal(
    await c.countDocuments({ n: { $gt: 'a' } }, { collation: ci }),
    4,
    'ranges compare with the collator (b B e é)'
  )
  const agg = await c.aggregate([{ $match: { n: 'a' } }, { $sort: { n: 1 } }], { collation: ci }).toArray()
  t.equal(agg.length, 2)
})

t.test('update, delete and findAndModify with a collation', async (t) => {
  const c = h.db.collection('tags')
  await c.insertMany([{ t: 'Red' }, { t: 'red' }, { t: 'RED' }, { t: 'blue' }])
  t.equal((await c.updateMany({ t: 'red' }, { $set: { hit: 1 } }, { collation: ci })).modifiedCount, 3)
  t.equal((await c.updateMany({ t: 'red' }, { $set: { hit: 2 } })).modifiedCount, 1)
  const got = await c.findOneAndUpdate({ t: 'BLUE' }, { $set: { hit: 3 } }, { collation: ci, returnDocument: 'after' })
  t.equal(got?.t, 'blue')
  t.equal((await c.deleteMany({ t: 'RED' }, { collation: { locale: 'en', strength: 1 } })).deletedCount, 3)
  t.equal(await c.countDocuments(), 1)
})

t.test('a collection default collation applies to its indexes and queries', async (t) => {
  await h.db.createCollection('people', { collation: { locale: 'fr', strength: 1 } })
  const p = h.db.collection('people')
  const info = (await h.db.listCollections({ name: 'people' }).toArray())[0] as Document
  t.equal(info.options.collation.locale, 'fr')
  t.equal(info.options.collation.strength, 1)
  await p.createIndex({ name: 1 })
  const ix = (await p.listIndexes().toArray()).find((i) => i.name === 'name_1')
  t.equal(ix?.collation?.locale, 'fr', 'an index without a collation inherits the default')
  t.equal((await p.listIndexes().toArray())[0].collation?.locale, 'fr', 'so does _id')
  await p.insertMany([{ name: 'Élan' }, { name: 'elan' }, { name: 'other' }])
  t.equal(await p.countDocuments({ name: 'ELAN' }), 2)
  t.equal(ixName(await p.find({ name: 'ELAN' }).explain('queryPlanner')), 'name_1')
  t.equal(
    await p.countDocuments({ name: 'ELAN' }, { collation: { locale: 'simple' } }),
    0,
    'simple overrides the default'
  )
  t.equal(ixName(await p.find({ name: 'ELAN' }).collation({ locale: 'simple' }).explain('queryPlanner')), undefined)
  await p.createIndex({ name: 1 }, { name: 'name_simple', collation: { locale: 'simple' } })
  t.equal(
    ixName(await p.find({ name: 'elan' }).collation({ locale: 'simple' }).explain('queryPlanner')),
    'name_simple',
    'same keys, other collation: another index'
  )
})

t.test('numbers and dates use a collated index whatever the query collation', async (t) => {
  const c = h.db.collection('mixed')
  await c.createIndex({ v: 1 }, { collation: ci })
  await c.insertMany([{ v: 1 }, { v: 2 }, { v: 'x' }])
  const ex = await c.find({ v: 2 }).explain('queryPlanner')
  t.equal(ixName(ex), 'v_1')
  t.same(
    (await c.find({ v: 2 }).toArray()).map((d) => d.v),
    [2]
  )
})

t.test('invalid and unsupported collations are refused with one code per condition', async (t) => {
  const c = h.db.collection('names')
  const code = async (collation: unknown): Promise<{ code?: number; message: string }> =>
    await mongoError(async () => await h.db.command({ find: 'names', filter: {}, collation }))
  const bad = await code({ locale: 'xx' })
  t.equal(bad.code, 2)
  t.equal(bad.message, 'Field \'locale\' is invalid in: { locale: "xx" }')
  const dash = await code({ locale: 'en-US' })
  t.equal(dash.code, 2)
  t.equal(dash.message, "Field 'locale' is invalid in: { locale: \"en-US\" }. Did you mean 'en_US'?")
  t.equal((await code({ strength: 2 })).code, 40414, 'locale is required')
  t.equal((await code({ locale: 'en', colour: 1 })).code, 40415, 'unknown field')
  t.equal((await code({ locale: 'en', strength: 'x' })).code, 14, 'wrong type')
  t.equal((await code({ locale: 'en', strength: 6 })).code, 51024, 'out of range')
  t.equal((await code({ locale: 'en', caseFirst: 'sideways' })).code, 2, 'bad enumeration value')
  t.equal(
    (await code({ locale: 'en', strength: 1, caseFirst: 'upper' })).code,
    2,
    'caseFirst needs strength 3 or caseLevel'
  )
  t.equal((await code({ locale: 'en', version: '1.0' })).code, 161, 'IncompatibleCollationVersion')
  for (const unsupported of [
    { locale: 'en', strength: 4 },
    { locale: 'en', strength: 5 },
    { locale: 'en', strength: 2, caseLevel: true },
    { locale: 'en', backwards: true },
    { locale: 'en', alternate: 'shifted', maxVariable: 'space' },
    { locale: 'sv@collation=search' }
  ]) {
    const e = await code(unsupported)
    t.equal(e.code, 238, `NotImplemented for ${JSON.stringify(unsupported)}`)
  }
  t.equal(
    (await c.find({ n: 'a' }).collation({ locale: 'en', alternate: 'shifted' }).toArray()).length,
    1,
    'alternate: shifted is supported'
  )
  t.equal(
    (await c.find({}).collation({ locale: 'de@collation=phonebook' }).toArray()).length,
    8,
    'ICU variants Intl knows are supported'
  )
  t.equal(
    (await mongoError(async () => await h.db.collection('z').createIndex({ a: 1 }, { collation: { locale: 'zz' } })))
      .code,
    2
  )
  t.equal(
    (await mongoError(async () => await h.db.createCollection('zz', { collation: { locale: 'en', strength: 9 } })))
      .code,
    51024
  )
})
