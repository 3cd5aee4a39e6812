/**
 * Retryable writes: a write carrying a session's txnNumber runs once — sending it again (what the
 * driver does after a network error) answers the first execution's reply without writing twice;
 * an older txnNumber is refused. Raw OP_MSG, because the driver picks txnNumbers itself.
 */
import t from 'tap'
import { connect, type Socket } from 'node:net'
import { once } from 'node:events'
import { Long, UUID, deserialize, serialize, type Document } from 'bson'
import { setup } from './fixtures/devdb-harness.js'

const h = await setup(t)
const socket: Socket = connect(h.server.port, '127.0.0.1')
await once(socket, 'connect')
t.teardown(() => {
  socket.destroy()
})

let pending = Buffer.alloc(0)
let requestId = 1
/** Sends one OP_MSG command and reads its reply. */
async function command (doc: Document): Promise<Document> {
  const body = serialize(doc)
  const head = Buffer.alloc(21)
  head.writeInt32LE(21 + body.length, 0)
  head.writeInt32LE(requestId++, 4)
  head.writeInt32LE(0, 8)
  head.writeInt32LE(2013, 12) // OP_MSG, flags 0, section kind 0
  socket.write(Buffer.concat([head, body]))
  while (pending.length < 4 || pending.length < pending.readInt32LE(0)) {
    const [chunk] = (await once(socket, 'data')) as [Buffer]
    pending = Buffer.concat([pending, chunk])
  }
  const length = pending.readInt32LE(0)
  // without the logical time every replica-set reply carries (operationTime, $clusterTime)
  const { operationTime: _t, $clusterTime: _c, ...reply } = deserialize(pending.subarray(21, length))
  pending = pending.subarray(length)
  return reply
}

const lsid = { id: new UUID() }
const insert = (txnNumber: number, x: number): Document => ({
  insert: 'rw',
  documents: [{ _id: x, x }],
  ordered: true,
  lsid,
  txnNumber: Long.fromNumber(txnNumber),
  $db: 'test'
})

t.test('a retried write is answered, not executed again', async (t) => {
  t.same(await command(insert(1, 1)), { n: 1, ok: 1 })
  // the same statement again: the first reply, and still one document
  t.same(await command(insert(1, 1)), { n: 1, ok: 1 })
  t.equal(await h.db.collection('rw').countDocuments(), 1)
  const inc = {
    update: 'rw',
    updates: [{ q: { _id: 1 }, u: { $inc: { x: 10 } } }],
    lsid,
    txnNumber: Long.fromNumber(2),
    $db: 'test'
  }
  t.same(await command(inc), { n: 1, nModified: 1, ok: 1 })
  t.same(await command(inc), { n: 1, nModified: 1, ok: 1 })
  t.same(await h.db.collection('rw').findOne({ _id: 1 as never }), { _id: 1, x: 11 }, '$inc applied once')
})

t.test('an older txnNumber is refused; another session is independent', async (t) => {
  const old = await command(insert(1, 5))
  t.equal(old.code, 225)
  t.equal(old.codeName, 'TransactionTooOld')
  t.same(await command({ ...insert(1, 6), lsid: { id: new UUID() } }), { n: 1, ok: 1 })
  t.same(
    (await h.db.collection('rw').find().toArray()).map((d) => d._id),
    [1, 6]
  )
})
