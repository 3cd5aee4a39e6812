import { createServer } from 'node:http'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { signToken, userClaims } from '@svc/testkit'
import { baseEnv, startSvc, stop, type Started } from './fixtures/svc-process.js'
import { call, type Answer } from './fixtures/fresh-http.js'
import { workspace } from './fixtures/workspace.js'

// Issue 27: nothing per-process a user can observe, with SVC_WORKERS=3 and no Redis (the
// primary holds the counters and the cache generations; the database the rest). Two clusters,
// started together: NODE_ENV=test (rate limits off, local webhook receivers allowed) and
// development (rate limits on).
t.setTimeout(400_000)

const SECRET = 'cluster-state-secret-0123456789abcdef'
const workerOf = (a: Answer): string => String(a.headers['x-svc-worker'])

function withDeals (): ReturnType<typeof workspace> {
  const ws = workspace()
  writeFileSync(
    join(ws.schemaDir, 'versions', 'v1', 'deals.mjs'),
    `export default {
  path: 'deals',
  fields: [{ name: 'title', type: 'String', required: true }, { name: 'amount', type: 'Number', required: true }],
  aggregations: [{ name: 'total', pipeline: [{ $group: { _id: null, total: { $sum: '$amount' } } }], cache: { ttlSeconds: 300 } }]
}\n`
  )
  return ws
}

/** Calls until one is answered by a worker other than `not` (the primary rotates connections). */
async function onAnotherWorker (not: string, send: () => Promise<Answer>): Promise<Answer> {
  for (let i = 0; i < 12; i++) {
    const res = await send()
    if (workerOf(res) !== not) return res
  }
  throw new Error(`every answer came from worker ${not}`)
}

t.test('three workers share what a user can observe', async (t) => {
  const testWs = withDeals()
  const devWs = workspace()
  const [svc, dev]: Started[] = await Promise.all([
    startSvc(t, baseEnv(testWs, { SVC_WORKERS: '3' }, SECRET), 240_000),
    startSvc(
      t,
      // Load shedding off, as under NODE_ENV=test: on a busy machine it answered 503 for a 200 here.
      baseEnv(
        devWs,
        { SVC_WORKERS: '3', NODE_ENV: 'development', RATE_LIMIT_API_PER_MIN: '6', LOAD_SHED_EVENT_LOOP_DELAY_MS: '0' },
        SECRET
      ),
      240_000
    )
  ])
  t.teardown(async () => {
    await Promise.all([stop(svc), stop(dev)])
  })
  const auth = { authorization: `Bearer ${signToken(userClaims({ user_id: '65f0000000000000000000c1' }), SECRET)}` }
  const other = { authorization: `Bearer ${signToken(userClaims({ user_id: '65f0000000000000000000c2' }), SECRET)}` }

  await t.test('a rate limit is one budget across the workers', async (t) => {
    const answers: Answer[] = []
    for (let i = 0; i < 8; i++) answers.push(await call(dev.url, 'GET', '/api/v1/notes', { headers: auth }))
    t.equal(new Set(answers.map(workerOf)).size, 3, 'the requests reached all three workers')
    t.same(
      answers.map((a) => a.status),
      [200, 200, 200, 200, 200, 200, 429, 429],
      'six in total (RATE_LIMIT_API_PER_MIN=6), then 429 on any worker'
    )
    t.equal(answers[6].body.error.code, 'RATE_LIMITED')
    t.same(
      answers.slice(0, 6).map((a) => a.headers['x-ratelimit-remaining']),
      ['5', '4', '3', '2', '1', '0'],
      'one counter: remaining counts down whichever worker answers'
    )
  })

  await t.test('an idempotent retry on another worker gets the first answer', async (t) => {
    const headers = { ...auth, 'idempotency-key': 'retry-across-workers-1' }
    const first = await call(svc.url, 'POST', '/api/v1/notes', { body: { title: 'once' }, headers })
    t.equal(first.status, 201)
    const retry = await onAnotherWorker(
      workerOf(first),
      async () => await call(svc.url, 'POST', '/api/v1/notes', { body: { title: 'once' }, headers })
    )
    t.not(workerOf(retry), workerOf(first), `first on worker ${workerOf(first)}, retry on worker ${workerOf(retry)}`)
    t.equal(retry.status, 201)
    t.equal(retry.body._id, first.body._id, 'the same record')
    t.equal(retry.headers['idempotent-replayed'], 'true')
    const changed = await call(svc.url, 'POST', '/api/v1/notes', { body: { title: 'other body' }, headers })
    t.equal(changed.status, 409, 'the same key with another body is a conflict on any worker')
    const list = await call(svc.url, 'GET', '/api/v1/notes?title=once', { headers: auth })
    t.equal(list.body.results.length, 1, 'one record')
  })

  await t.test('an aggregation cached on one worker is retired by a write on another', async (t) => {
    const add = async (amount: number): Promise<Answer> =>
      await call(svc.url, 'POST', '/api/v1/deals', { body: { title: 'd', amount }, headers: auth })
    const total = async (): Promise<Answer> =>
      await call(svc.url, 'GET', '/api/v1/deals/aggregations/total', { headers: auth })
    t.equal((await add(10)).status, 201)
    const cached = await total()
    t.equal(cached.body.results[0].total, 10, `computed and cached on worker ${workerOf(cached)}`)
    const again = await total()
    t.equal(again.body.results[0].total, 10)
    const write = await onAnotherWorker(workerOf(cached), async () => await add(5))
    t.equal(write.status, 201, `written on worker ${workerOf(write)}`)
    const seen = new Map<string, number>()
    for (let i = 0; i < 6; i++) {
      const res = await total()
      seen.set(workerOf(res), res.body.results[0].total)
    }
    t.same([...seen.values()], [15, 15, 15], `every worker answers 15 at once (${JSON.stringify([...seen])})`)
    const theirs = await call(svc.url, 'GET', '/api/v1/deals/aggregations/total', { headers: other })
    t.same(theirs.body.results, [], 'another tenant: its own answer')
  })

  await t.test('a password reset on one worker: every worker refuses older tokens at once', async (t) => {
    const email = 'reset-across@example.test'
    const reg = await call(svc.url, 'POST', '/register', {
      body: { first_name: 'R', last_name: 'A', email, password: 'first-password-123' }
    })
    t.equal(reg.status, 201, 'POST /register')
    const old = { authorization: `Bearer ${String(reg.body.accessToken)}` }
    const cached = new Set<string>()
    for (let i = 0; i < 6; i++) {
      const res = await call(svc.url, 'GET', '/api/v1/notes', { headers: old })
      t.equal(res.status, 200)
      cached.add(workerOf(res))
    }
    t.equal(cached.size, 3, "every worker accepted (and cached the user's password change for 10 s)")
    // `iat` is in whole seconds and a same-second token stays valid: step past the login's second.
    await new Promise((resolve) => setTimeout(resolve, 1100))
    const before = svc.stdout().length
    t.equal((await call(svc.url, 'POST', '/auth/forgot-password', { body: { email } })).status, 202)
    let token: string | undefined
    for (let i = 0; i < 300 && token === undefined; i++) {
      for (const line of svc.stdout().slice(before).split('\n')) {
        const mail = /^\{/.test(line) ? JSON.parse(line).mail : undefined
        if (mail?.to === email) token = /token[^:]*: (\S+)/.exec(mail.text)?.[1]
      }
      if (token === undefined) await new Promise((resolve) => setTimeout(resolve, 20))
    }
    const reset = await call(svc.url, 'POST', '/auth/reset-password', {
      body: { token, password: 'second-password-456' }
    })
    t.equal(reset.status, 200, `reset completed on worker ${workerOf(reset)}`)
    const refused = new Map<string, number>()
    for (let i = 0; i < 6; i++) {
      const res = await call(svc.url, 'GET', '/api/v1/notes', { headers: old })
      refused.set(workerOf(res), res.status)
    }
    t.same(
      [...refused.values()],
      [401, 401, 401],
      `no worker accepts the old token, none waits out its cache (${JSON.stringify([...refused])})`
    )
  })

  await t.test('a webhook is delivered once whichever workers run the deliveries', async (t) => {
    const got: string[] = []
    const receiver = createServer((req, res) => {
      // The body is not checked here: read it to its end, then record the delivery id.
      req.resume()
      req.on('end', () => {
        got.push(String(req.headers['x-svc-delivery']))
        res.end('ok')
      })
    })
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
    t.teardown(() => {
      receiver.close()
    })
    const address = receiver.address() as { port: number }
    const sub = await call(svc.url, 'POST', '/api/v1/webhooks', {
      body: { events: ['notes.created'], url: `http://127.0.0.1:${address.port}/hook` },
      headers: auth
    })
    t.equal(sub.status, 201, 'subscribed')
    const workers = new Set<string>()
    for (let i = 0; i < 9; i++) {
      const res = await call(svc.url, 'POST', '/api/v1/notes', { body: { title: `hooked ${i}` }, headers: auth })
      t.equal(res.status, 201)
      workers.add(workerOf(res))
    }
    t.equal(workers.size, 3, 'written on all three workers')
    const deadline = Date.now() + 30_000
    while (got.length < 9 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100))
    // Give a duplicate the time to show up.
    await new Promise((resolve) => setTimeout(resolve, 2000))
    t.equal(got.length, 9, 'nine deliveries')
    t.equal(new Set(got).size, 9, 'each delivery once (distinct X-svc-Delivery ids)')
  })
})
