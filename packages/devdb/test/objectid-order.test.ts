import { randomBytes } from 'node:crypto'
import t from 'tap'
import { ObjectId } from 'bson'
import { compareValues } from '../src/bson/bson-order.js'
import { setup } from './fixtures/devdb-harness.js'

// ObjectIds compare by their 12 bytes. bson 7 keeps them as four 24-bit integers, which devdb
// compares directly; an ObjectId that only answers `id` (another bson version) compares by bytes.

const sign = (n: number): number => (n < 0 ? -1 : n > 0 ? 1 : 0)
const byBytes = (a: Uint8Array, b: Uint8Array): number => sign(Buffer.compare(a, b))

/** Pairs that differ in one byte, around each 24-bit integer's high bit and edges. */
function edgePairs (): Array<[Uint8Array, Uint8Array]> {
  const out: Array<[Uint8Array, Uint8Array]> = []
  for (let i = 0; i < 12; i++) {
    for (const [x, y] of [
      [0x00, 0x01],
      [0x7f, 0x80],
      [0x80, 0xff],
      [0x00, 0xff],
      [0xfe, 0xff]
    ]) {
      const a = Buffer.alloc(12, 0x80)
      const b = Buffer.alloc(12, 0x80)
      a[i] = x
      b[i] = y
      out.push([a, b], [b, a])
    }
  }
  return out
}

t.test('ObjectIds compare as their bytes', async (t) => {
  const pairs: Array<[Uint8Array, Uint8Array]> = [...edgePairs()]
  for (let i = 0; i < 2000; i++) pairs.push([randomBytes(12), randomBytes(12)])
  const equalBytes = randomBytes(12)
  pairs.push([equalBytes, Buffer.from(equalBytes)])
  let wrong = 0
  for (const [x, y] of pairs) {
    if (sign(compareValues(new ObjectId(x), new ObjectId(y))) !== byBytes(x, y)) wrong++
  }
  t.equal(wrong, 0, `${pairs.length} pairs in byte order`)
  t.equal(compareValues(new ObjectId(equalBytes), new ObjectId(Buffer.from(equalBytes))), 0, 'equal bytes are equal')
})

t.test('an ObjectId without the integers (another bson version) compares by its bytes', async (t) => {
  const bytesOnly = (b: Uint8Array): unknown => ({ _bsontype: 'ObjectId', id: b })
  let wrong = 0
  for (const [x, y] of edgePairs()) {
    if (sign(compareValues(bytesOnly(x), bytesOnly(y))) !== byBytes(x, y)) wrong++
    if (sign(compareValues(bytesOnly(x), new ObjectId(y))) !== byBytes(x, y)) wrong++
    if (sign(compareValues(new ObjectId(x), bytesOnly(y))) !== byBytes(x, y)) wrong++
  }
  t.equal(wrong, 0)
})

t.test('an index on ObjectIds walks them in byte order, and finds each', async (t) => {
  const h = await setup(t)
  const c = h.db.collection('oid_order')
  const ids = [...edgePairs().flat(), ...Array.from({ length: 300 }, () => randomBytes(12))]
  const unique = [...new Map(ids.map((b) => [Buffer.from(b).toString('hex'), b])).values()]
  await c.insertMany(unique.map((b, i) => ({ _id: new ObjectId(b), ref: new ObjectId(b), i })))
  await c.createIndex({ ref: 1 })
  const expected = unique.map((b) => Buffer.from(b).toString('hex')).sort()
  const byId = (await c.find({}, { sort: { _id: 1 } }).toArray()).map((d) => d._id.toHexString())
  t.same(byId, expected, '_id index ascending')
  const byRef = (
    await c
      .find({ ref: { $gte: new ObjectId(Buffer.alloc(12, 0)) } }, { sort: { ref: -1 }, hint: { ref: 1 } })
      .toArray()
  ).map((d) => d.ref.toHexString())
  t.same(byRef, [...expected].reverse(), 'secondary index descending')
  let missed = 0
  for (const hex of expected.slice(0, 50)) if ((await c.findOne({ _id: new ObjectId(hex) })) === null) missed++
  t.equal(missed, 0, 'each found by its _id')
})
