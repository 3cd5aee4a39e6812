import { test } from 'tap'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import Fastify from 'fastify'
import { latencyUnderAttack, registerUser, trickle } from '../src/index.js'

test('latencyUnderAttack: the victim runs until every attack answered; its longest wait shows a blocked loop', async (t) => {
  const sleep = async (ms: number): Promise<void> => await new Promise((resolve) => setTimeout(resolve, ms))
  // Bounds are relative to HOLD_MS, long beside a loaded machine's scheduling delays (tens of ms
  // under CI's four suites on two cores): a yielding attack keeps every victim wait below it, a
  // loop-blocking one makes one wait at least that long.
  const HOLD_MS = 300
  const calm = await latencyUnderAttack(
    async () => {
      await sleep(HOLD_MS)
      return 'a'
    },
    async () => await sleep(5),
    { concurrency: 3 }
  )
  t.same(calm.attacks, ['a', 'a', 'a'], 'every attack answers')
  t.ok(calm.victimRuns >= 5, `the victim kept running (${calm.victimRuns} runs)`)
  t.ok(calm.victimMs < HOLD_MS / 2, `an attack that yields leaves the victim served (${calm.victimMs.toFixed(1)} ms)`)

  const blocking = await latencyUnderAttack(
    async () => {
      await sleep(10)
      const until = performance.now() + HOLD_MS
      while (performance.now() < until); // holds the event loop, as a runaway request would
      return 1
    },
    async () => await sleep(1)
  )
  t.ok(
    blocking.victimMs >= HOLD_MS,
    `a loop-blocking attack shows as the victim's wait (${blocking.victimMs.toFixed(1)} ms)`
  )
})

test('trickle: writes slowly until the server closes, answers its status and body', async (t) => {
  const seen: string[] = []
  const server: Server = createServer((req, res) => {
    let body = ''
    req.on('data', (d) => {
      body += d.toString()
    })
    req.on('end', () => {
      seen.push(body)
      const answer = `got ${body}`
      res.writeHead(201, { connection: 'close', 'content-length': answer.length }).end(answer)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => {
    server.close()
  })
  const { port } = server.address() as AddressInfo
  const head = 'POST / HTTP/1.1\r\nhost: x\r\ncontent-length: 3\r\n\r\n'
  const done = await trickle('127.0.0.1', port, head, 'abc', 20)
  t.equal(done.status, 201)
  t.equal(done.body, 'got abc')
  t.same(seen, ['abc'], 'each character arrived')
  t.ok(done.ms >= 40, `it trickled (${done.ms.toFixed(0)} ms)`)

  const refused = await trickle('127.0.0.1', 1, '', 'x', 10)
  t.same([refused.status, refused.body], [0, ''], 'no server: status 0, no body')
})

test('registerUser: posts the CONTRACT body and hands back tokens and headers; a refusal throws', async (t) => {
  const app = Fastify()
  const bodies: Array<Record<string, unknown>> = []
  app.post('/register', async (req, reply) => {
    const body = req.body as Record<string, unknown>
    bodies.push(body)
    if (body.email === 'taken@example.test') return await reply.code(409).send({ error: { code: 'CONFLICT' } })
    return await reply.code(201).send({ user: { _id: 'u1', email: body.email }, accessToken: 'at', refreshToken: 'rt' })
  })
  t.teardown(async () => await app.close())
  const a = await registerUser(app)
  const b = await registerUser(app, { password: 'another one entirely' })
  t.match(a.user.email, /^user-[0-9a-f]{10}@example\.test$/)
  t.not(a.user.email, b.user.email, 'a unique e-mail per call')
  t.same(a.headers, { authorization: 'Bearer at' })
  t.equal(a.refreshToken, 'rt')
  t.equal(a.password, 'correct horse battery staple')
  t.equal(b.password, 'another one entirely')
  t.same([bodies[0].first_name, bodies[0].last_name], ['Test', 'User'])
  await t.rejects(registerUser(app, { email: 'taken@example.test' }), /answered 409/)
})
