import type { AddressInfo } from 'node:net'
import t from 'tap'
import { latencyUnderAttack, trickle } from '@svc/testkit'
import { requestTimeouts, svcServerOptions } from '../src/index.js'
import { buildCoreApp, makeUser } from './helper.js'

// Issue 21: request bodies could trickle in forever (200 slow connections held, no 408). With
// svcServerOptions a request must arrive within `requestTimeout`; past it the answer is 408
// REQUEST_TIMEOUT in the envelope and the connection is closed.

const TIMEOUT_MS = 3000

t.test('a trickling body is answered 408 in the envelope; 200 slow connections do not hold the server', async (t) => {
  const app = await buildCoreApp(t, { fastify: { ...svcServerOptions, ...requestTimeouts(TIMEOUT_MS) } })
  await app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = app.server.address() as AddressInfo
  const attacker = makeUser()
  const victim = makeUser()
  const head = `POST /api/v1/tasks HTTP/1.1\r\nHost: x\r\nAuthorization: ${attacker.headers.authorization}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n`
  const { victimMs, attacks } = await latencyUnderAttack(
    async () => await trickle('127.0.0.1', port, head, '{"title":"' + 'x'.repeat(10_000)),
    async () => {
      const res = await fetch(`http://127.0.0.1:${port}/api/v1/tasks`, { headers: victim.headers })
      if (res.status !== 200) throw new Error(`the victim got ${res.status}`)
      await res.arrayBuffer()
    },
    { concurrency: 200 }
  )
  // Held by the trickles, it would wait for their timeout; a loaded CI machine gets a second of slack.
  t.ok(
    victimMs < TIMEOUT_MS - 1000,
    `another client waited ${Math.round(victimMs)} ms at most while 200 bodies trickled`
  )
  t.equal(attacks.filter((a) => a.status === 408).length, 200, 'every trickling request got 408')
  t.same(JSON.parse(attacks[0].body), {
    error: { code: 'REQUEST_TIMEOUT', message: 'the request took too long to arrive' }
  })
  t.ok(
    Math.max(...attacks.map((a) => a.ms)) < 2 * TIMEOUT_MS,
    `answered within ${Math.round(Math.max(...attacks.map((a) => a.ms)))} ms (timeout ${TIMEOUT_MS} ms)`
  )

  const slowHeaders = await trickle(
    '127.0.0.1',
    port,
    '',
    `GET /api/v1/tasks HTTP/1.1\r\nHost: x\r\nX-Pad: ${'y'.repeat(100)}\r\n\r\n`
  )
  t.equal(slowHeaders.status, 408, 'headers trickling in are cut off too')
  t.equal(await app.svc.db.collection('tasks').countDocuments(), 0, 'nothing was written')
})

t.test('the defaults hosts get from svcServerOptions; requestTimeouts keeps the headers deadline inside', async (t) => {
  t.equal(svcServerOptions.requestTimeout, 30_000)
  t.match(svcServerOptions.http, { headersTimeout: 10_000, connectionsCheckingInterval: 1000 })
  t.same(requestTimeouts(1500), {
    requestTimeout: 1500,
    http: { headersTimeout: 1500, connectionsCheckingInterval: 1000 }
  })
  t.throws(() => requestTimeouts(0), /positive whole number/)
})
