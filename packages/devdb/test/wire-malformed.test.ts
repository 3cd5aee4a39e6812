import t from 'tap'
import { connect, type Socket } from 'node:net'
import { BSON } from 'mongodb'
import { setup } from './fixtures/devdb-harness.js'

const h = await setup(t)
const port = h.server.port

function opMsg (doc: object, requestId = 1, flags = 0): Buffer {
  const body = BSON.serialize(doc)
  const header = Buffer.alloc(21)
  header.writeInt32LE(21 + body.length, 0)
  header.writeInt32LE(requestId, 4)
  header.writeInt32LE(0, 8)
  header.writeInt32LE(2013, 12)
  header.writeUInt32LE(flags, 16)
  header.writeUInt8(0, 20)
  return Buffer.concat([header, body])
}

function opQuery (doc: object): Buffer {
  const body = BSON.serialize(doc)
  const ns = Buffer.from('admin.$cmd\0')
  const fixed = Buffer.alloc(16 + 4)
  const len = 20 + ns.length + 8 + body.length
  fixed.writeInt32LE(len, 0)
  fixed.writeInt32LE(7, 4)
  fixed.writeInt32LE(2004, 12)
  const skipReturn = Buffer.alloc(8)
  skipReturn.writeInt32LE(-1, 4)
  return Buffer.concat([fixed, ns, skipReturn, body])
}

interface Conn {
  socket: Socket
  reply: () => Promise<Buffer>
  closed: Promise<void>
}
async function open (): Promise<Conn> {
  const socket = connect(port, '127.0.0.1')
  await new Promise<void>((resolve) =>
    socket.once('connect', () => {
      resolve()
    })
  )
  let buf = Buffer.alloc(0)
  const waiters: Array<() => void> = []
  socket.on('data', (d) => {
    buf = Buffer.concat([buf, d])
    waiters.splice(0).forEach((w) => {
      w()
    })
  })
  socket.on('error', () => {})
  const closed = new Promise<void>((resolve) =>
    socket.once('close', () => {
      resolve()
    })
  )
  const reply = async (): Promise<Buffer> => {
    for (;;) {
      if (buf.length >= 4 && buf.length >= buf.readInt32LE(0)) {
        const len = buf.readInt32LE(0)
        const msg = buf.subarray(0, len)
        buf = buf.subarray(len)
        return msg
      }
      await Promise.race([
        new Promise<void>((resolve) => waiters.push(resolve)),
        closed.then(() => {
          throw new Error('closed')
        })
      ])
    }
  }
  return { socket, reply, closed }
}
/** The reply's body without the logical time every replica-set reply carries (operationTime, $clusterTime). */
const msgBody = (m: Buffer): Record<string, any> => {
  const { operationTime: _t, $clusterTime: _c, ...body } = BSON.deserialize(m.subarray(21))
  return body
}

t.test('a valid OP_MSG split across writes is answered', async (t) => {
  const c = await open()
  const m = opMsg({ ping: 1, $db: 'admin' }, 42)
  c.socket.write(m.subarray(0, 7))
  await new Promise((resolve) => setTimeout(resolve, 20))
  c.socket.write(m.subarray(7))
  const r = await c.reply()
  t.equal(r.readInt32LE(8), 42, 'responseTo matches requestID')
  t.same(msgBody(r), { ok: 1 })
  c.socket.destroy()
})

t.test('legacy OP_QUERY handshake gets OP_REPLY', async (t) => {
  const c = await open()
  c.socket.write(opQuery({ isMaster: 1 }))
  const r = await c.reply()
  t.equal(r.readInt32LE(12), 1, 'OP_REPLY opcode')
  const doc = BSON.deserialize(r.subarray(36))
  t.equal(doc.ismaster, true)
  t.equal(doc.maxWireVersion, 21)
  c.socket.destroy()
})

t.test('unparseable BSON gets an error reply and the connection keeps working', async (t) => {
  const c = await open()
  const m = opMsg({ ping: 1, $db: 'admin' })
  m.writeUInt8(0x55, 25) // corrupt the element type of the first field
  c.socket.write(m)
  const r = await c.reply()
  const body = msgBody(r)
  t.equal(body.ok, 0)
  t.equal(body.code, 22)
  c.socket.write(opMsg({ ping: 1, $db: 'admin' }))
  t.same(msgBody(await c.reply()), { ok: 1 })
  c.socket.destroy()
})

t.test('oversize, undersize and unknown-opcode messages close only that connection', async (t) => {
  const big = await open()
  const header = Buffer.alloc(16)
  header.writeInt32LE(48_000_001, 0)
  header.writeInt32LE(2013, 12)
  big.socket.write(header)
  await big.closed
  t.pass('oversize closed')
  const small = await open()
  const tiny = Buffer.alloc(8)
  tiny.writeInt32LE(5, 0)
  small.socket.write(tiny)
  await small.closed
  t.pass('undersize closed')
  const odd = await open()
  const h2 = Buffer.alloc(20)
  h2.writeInt32LE(20, 0)
  h2.writeInt32LE(9999, 12)
  odd.socket.write(h2)
  await odd.closed
  t.pass('unknown opcode closed')
  const garbage = await open()
  garbage.socket.write(Buffer.from('GET / HTTP/1.1\r\nHost: x\r\n\r\n'))
  await garbage.closed
  t.pass('HTTP garbage closed')
  t.equal(await h.db.collection('still').countDocuments(), 0, 'driver connections unaffected')
  await h.db.collection('still').insertOne({ ok: true })
  t.equal(await h.db.collection('still').countDocuments(), 1)
})

t.test('OP_MSG without $db and with an unknown section kind', async (t) => {
  const c = await open()
  c.socket.write(opMsg({ ping: 1 }))
  const body = msgBody(await c.reply())
  t.equal(body.ok, 0)
  t.equal(body.code, 40571)
  const m = opMsg({ ping: 1, $db: 'admin' })
  m.writeUInt8(9, 20)
  c.socket.write(m)
  const body2 = msgBody(await c.reply())
  t.equal(body2.ok, 0)
  c.socket.destroy()
})

t.test('checksum flag is tolerated', async (t) => {
  const c = await open()
  const base = opMsg({ ping: 1, $db: 'admin' }, 5, 1)
  const withSum = Buffer.concat([base, Buffer.alloc(4)])
  withSum.writeInt32LE(withSum.length, 0)
  c.socket.write(withSum)
  t.same(msgBody(await c.reply()), { ok: 1 })
  c.socket.destroy()
})
