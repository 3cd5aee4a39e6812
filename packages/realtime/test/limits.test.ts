import t from 'tap'
import { connect } from 'node:net'
import { buildApp, call, makeUser, sleep, stream } from './helper.js'

// CONTRACT "Realtime" limits and heartbeat: streams per tenant, slow consumers, comment lines.

t.test(
  'REALTIME_MAX_STREAMS_PER_USER: one more is 429 before the stream; a closed one frees its slot at once',
  async (t) => {
    const b = await buildApp(t, { realtime: { maxStreamsPerUser: 2 } })
    const alice = makeUser()
    const alice2 = makeUser({ user_id: alice.userId, roles: ['user', 'hr'] })
    const bob = makeUser()
    const one = await stream(t, b, alice.headers)
    await stream(t, b, alice2.headers)
    const third = await stream(t, b, alice.headers)
    t.equal(third.status, 429, "the tenant's third stream (whatever its token)")
    t.equal(third.body.error.code, 'RATE_LIMITED')
    t.equal((await stream(t, b, bob.headers)).status, 200, 'another tenant is not affected')
    one.close()
    await one.ended
    let again = await stream(t, b, alice.headers)
    for (let i = 0; again.status !== 200 && i < 20; i++) {
      // The server notices the disconnect when the socket closes: a few ms.
      await sleep(25)
      again = await stream(t, b, alice.headers)
    }
    t.equal(again.status, 200, 'the slot came back')
  }
)

t.test('heartbeat: a comment line at least every REALTIME_HEARTBEAT_SECONDS on an idle stream', async (t) => {
  const b = await buildApp(t, { realtime: { heartbeatSeconds: 0.2 } })
  const conn = await stream(t, b, makeUser().headers)
  await sleep(1100)
  const beats = conn.messages.filter((m) => m.comment !== undefined)
  t.ok(beats.length >= 4, `${beats.length} heartbeats in 1.1 s`)
  t.equal(conn.events().length, 0, 'no event was invented')
})

t.test('a slow consumer is disconnected, not buffered; its slot is freed', async (t) => {
  const b = await buildApp(t, { realtime: { maxBufferedBytes: 64 * 1024, maxStreamsPerUser: 1 } })
  const u = makeUser()
  const { port } = new URL(b.url)
  const socket = connect(Number(port), '127.0.0.1')
  await new Promise<void>((resolve) =>
    socket.once('connect', () => {
      resolve()
    })
  )
  // An object: the loops below wait for a flag only the socket's callback sets.
  const conn = { closed: false }
  socket.on('close', () => {
    conn.closed = true
  })
  socket.on('error', () => {})
  socket.write(
    `GET /api/v1/_events?types=logs.* HTTP/1.1\r\nHost: x\r\nAuthorization: ${u.headers.authorization}\r\n\r\n`
  )
  // Read the headers, then never again.
  await new Promise<void>((resolve) =>
    socket.once('data', () => {
      resolve()
    })
  )
  socket.pause()
  // Another tenant reading its own stream meanwhile: the stalled one must not hold it back.
  const other = makeUser()
  const fast = await stream(t, b, other.headers, 'types=logs.created')
  const big = 'x'.repeat(60_000)
  const ctx = { identity: { kind: 'user' as const, userId: u.userId, roles: ['user'] }, surface: 'graphql' as const }
  let sent = 0
  for (let i = 0; i < 40 && !conn.closed; i++) {
    await b.app.svc.services.get('logs').createMany(
      ctx,
      Array.from({ length: 10 }, () => ({ line: big }))
    )
    await call(b.app, 'POST', '/api/v1/logs', other.headers, { line: `other ${sent++}` })
    await fast.waitFor(sent, 5000)
    await sleep(50)
  }
  for (let i = 0; i < 100 && !conn.closed; i++) await sleep(50)
  t.ok(conn.closed, 'the server closed the connection of the client that does not read')
  t.ok(sent >= 1, `${sent} writes of another tenant while it stalled`)
  t.same(
    fast.events().map((e) => e.data.record.line),
    Array.from({ length: sent }, (_, i) => `other ${i}`),
    "another tenant's stream got each of its events meanwhile, in order, within 5 s of the write"
  )
  const next = await stream(t, b, u.headers)
  t.equal(next.status, 200, 'its slot is free again')
  const heap = process.memoryUsage().heapUsed
  t.ok(heap < 512 * 1024 * 1024, `memory stays bounded (${Math.round(heap / 1048576)} MiB heap)`)
})

t.test('liveness: a write answered after the headers arrived is always delivered', async (t) => {
  const b = await buildApp(t)
  const u = makeUser()
  for (let i = 0; i < 15; i++) {
    const conn = await stream(t, b, u.headers, 'types=logs.created')
    await call(b.app, 'POST', '/api/v1/logs', u.headers, { line: `n${i}` })
    const [e] = await conn.waitFor(1, 5000)
    t.equal(e.data.record.line, `n${i}`, `stream ${i}`)
    conn.close()
  }
})
