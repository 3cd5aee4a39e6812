/**
 * Compatibility: mongoose (its own bundled driver, default options) through a realistic script —
 * schemas with indexes and a case-insensitive unique collation index, validation, populate,
 * countDocuments, lean, aggregate, and transactions (committed and rolled back).
 */
import t from 'tap'
import mongoose, { Schema } from 'mongoose'
import { startDevDb } from '../src/index.js'

const server = await startDevDb({ port: 0, freezeDocuments: true })
const conn = await mongoose.createConnection(`${server.uri}shop`).asPromise()
t.teardown(async () => {
  await conn.close()
  await server.stop()
})

const userSchema = new Schema(
  {
    email: { type: String, required: true },
    name: String,
    age: { type: Number, min: 0 }
  },
  { timestamps: true }
)
userSchema.index({ email: 1 }, { unique: true, collation: { locale: 'en', strength: 2 } })
const postSchema = new Schema(
  {
    author: { type: Schema.Types.ObjectId, ref: 'User', required: true },
    title: String,
    tags: [String],
    views: { type: Number, default: 0 }
  },
  { timestamps: true }
)
postSchema.index({ author: 1, createdAt: -1 })
const User = conn.model('User', userSchema)
const Post = conn.model('Post', postSchema)
await User.init()
await Post.init()

t.test('indexes are created as declared', async (t) => {
  const ix = await User.collection.indexes()
  const email = ix.find((i) => i.name === 'email_1')
  t.equal(email?.unique, true)
  t.equal(email?.collation?.locale, 'en')
  t.equal(email?.collation?.strength, 2)
  t.ok((await Post.collection.indexes()).some((i) => i.name === 'author_1_createdAt_-1'))
})

t.test('create, validation, case-insensitive uniqueness and collation queries', async (t) => {
  const ann = await User.create({ email: 'Ann@x.io', name: 'Ann', age: 31 })
  t.ok(ann.createdAt instanceof Date)
  await t.rejects(User.create({ email: 'ann@X.IO', name: 'Other' }), { code: 11000 })
  await t.rejects(User.create({ email: 'neg@x.io', age: -1 }), { name: 'ValidationError' })
  const found = await User.findOne({ email: 'ANN@X.IO' }).collation({ locale: 'en', strength: 2 })
  t.equal(found?.name, 'Ann')
  t.equal(await User.findOne({ email: 'ANN@X.IO' }), null, 'without the collation: binary comparison')
})

t.test('populate, countDocuments, lean, updates and aggregate', async (t) => {
  const bob = await User.create({ email: 'bob@x.io', name: 'Bob', age: 40 })
  const ann = await User.findOne({ name: 'Ann' }).orFail()
  await Post.insertMany([
    { author: ann._id, title: 'one', tags: ['a'] },
    { author: ann._id, title: 'two', tags: ['a', 'b'] },
    { author: bob._id, title: 'three', tags: ['b'] }
  ])
  const posts = await Post.find({ author: ann._id }).sort({ createdAt: -1 }).populate('author').exec()
  t.equal(posts.length, 2)
  t.equal((posts[0].author as unknown as { name: string }).name, 'Ann')
  t.equal(await Post.countDocuments({ tags: 'b' }), 2)
  const lean = await Post.find({ title: 'three' }).lean()
  t.equal(lean[0].views, 0)
  t.notOk(lean[0] instanceof mongoose.Document)
  await Post.updateOne({ title: 'one' }, { $inc: { views: 5 } })
  const updated = await Post.findOneAndUpdate({ title: 'one' }, { $push: { tags: 'c' } }, { new: true }).lean()
  t.same(updated?.tags, ['a', 'c'])
  t.equal(updated?.views, 5)
  const byAuthor = await Post.aggregate<{ _id: unknown; n: number }>([
    { $group: { _id: '$author', n: { $sum: 1 } } },
    { $sort: { n: -1 } }
  ])
  t.same(
    byAuthor.map((g) => g.n),
    [2, 1]
  )
  const del = await Post.deleteMany({ author: bob._id })
  t.equal(del.deletedCount, 1)
})

t.test('transactions: committed together, rolled back together', async (t) => {
  const carol = await conn.transaction(async (session) => {
    const [u] = await User.create([{ email: 'carol@x.io', name: 'Carol' }], { session })
    await Post.create([{ author: u._id, title: 'hello' }], { session })
    return u
  })
  t.equal(await Post.countDocuments({ author: carol._id }), 1)
  await t.rejects(
    conn.transaction(async (session) => {
      await User.create([{ email: 'dave@x.io', name: 'Dave' }], { session })
      throw new Error('changed my mind')
    }),
    /changed my mind/
  )
  t.equal(await User.countDocuments({ name: 'Dave' }), 0)
})

t.test('numeric schema types keep their BSON type: Double, Int32, BigInt (long), Decimal128', async (t) => {
  const Price = conn.model(
    'Price',
    new Schema({
      ratio: Schema.Types.Double,
      count: Schema.Types.Int32,
      big: BigInt,
      amount: Schema.Types.Decimal128
    })
  )
  const p = await Price.create({ ratio: 2, count: 3, big: 9007199254740993n, amount: '10.50' })
  await Price.updateOne(
    { _id: p._id },
    { $inc: { big: 1n, amount: mongoose.Types.Decimal128.fromString('0.25'), ratio: 1 } }
  )
  const raw = await conn.db!.collection('prices').findOne({ _id: p._id }, { promoteValues: false })
  const type = (v: unknown): string => `${(v as { _bsontype: string })._bsontype}(${String(v)})`
  t.same(
    [type(raw?.ratio), type(raw?.count), type(raw?.big), type(raw?.amount)],
    ['Double(3)', 'Int32(3)', 'Long(9007199254740994)', 'Decimal128(10.75)']
  )
  const back = await Price.findById(p._id)
  t.equal(back?.big, 9007199254740994n, 'the hydrated document has the long as a BigInt, exactly')
  t.equal(String(back?.amount), '10.75')
  t.equal((await Price.find({ ratio: { $type: 'double' } })).length, 1, '$type: double finds the integral double')
})
