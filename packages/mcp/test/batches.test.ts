import t from 'tap'
import type { FastifyInstance } from 'fastify'
import svcSurface from '@svc/surface'
import { readPrice } from '@svc/core/kit'
import { latencyUnderAttack } from '@svc/testkit'
import { buildApp, makeUser } from './helper.js'

// Issue 21: one POST could carry 100 JSON-RPC calls counted as one request (a 66 MB answer);
// a call cancelled inside its batch never answered and held its memory; a shutdown with a call
// pending was force-killed. Each call is now a request for cost (and, with a rate limiter, for
// the limits), a cancelled call is dropped from its batch and its reads stopped, and app.close()
// stops what does not finish in `shutdownGraceMs`.

const JSON_RPC = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }
const call = (id: number, name: string, args: Record<string, unknown> = {}): Record<string, unknown> => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args }
})
const cancel = (requestId: number): Record<string, unknown> => ({
  jsonrpc: '2.0',
  method: 'notifications/cancelled',
  params: { requestId, reason: 'changed my mind' }
})

/** A write subscriber that holds `create_<path>` calls until `release()`: a call that stays pending. */
/** A second client's small list, the latency the attack tests bound; throws unless it is served. */
async function victimCall (app: FastifyInstance, headers: Record<string, string>): Promise<void> {
  const res = await app.inject({
    method: 'POST',
    url: '/mcp',
    headers: { ...JSON_RPC, ...headers },
    payload: call(1, 'list_logs', { perPage: 5 })
  })
  if (res.json().result?.isError !== undefined) throw new Error(`the victim failed: ${res.body}`)
}

function holdWrites (): { hook: () => Promise<void>; release: () => void } {
  let release = (): void => {}
  const gate = new Promise<void>((resolve) => {
    release = resolve
  })
  return {
    hook: async () => {
      await gate
    },
    release
  }
}

t.test(
  'a batch of 100 large answers: one POST answers at most ten lists; another client is served meanwhile',
  async (t) => {
    const { app } = await buildApp(t)
    const attacker = makeUser()
    const now = new Date()
    await app.svc.db.collection('logs').insertMany(
      Array.from({ length: 100 }, (_, i) => ({
        line: `${i} ${'x'.repeat(900)}`,
        userId: attacker.userId,
        createdAt: now,
        updatedAt: now
      }))
    )
    const batch = Array.from({ length: 100 }, (_, i) => call(i + 1, 'list_logs', { perPage: 100 }))
    const victim = makeUser()
    const { victimMs, attacks } = await latencyUnderAttack(
      async () =>
        await app.inject({
          method: 'POST',
          url: '/mcp',
          headers: { ...JSON_RPC, ...attacker.headers },
          payload: batch
        }),
      async () => await victimCall(app, victim.headers),
      { concurrency: 3 }
    )
    t.ok(victimMs < 3000, `the other client waited ${Math.round(victimMs)} ms at most`)
    for (const res of attacks) {
      const results = res.json()
      t.equal(results.length, 100, 'every call answered')
      t.ok(res.body.length < 3_000_000, `one POST's answer: ${res.body.length} characters (was 66 MB)`)
      const served = results.filter((r: any) => r.result.isError !== true).length
      t.ok(served >= 1 && served <= 10, `${served} lists answered in full`)
      t.match(
        JSON.parse(results[99].result.content[0].text).error,
        { code: 'VALIDATION', details: { limit: 1_000_000 } },
        'the rest: send them in another POST'
      )
    }
  }
)

t.test("each call of a batch is priced and charged: the tenant's minute, whatever the POSTs", async (t) => {
  const { app } = await buildApp(t, { core: { tenantCostPerMinute: 5000 } })
  const u = makeUser()
  const price = readPrice(app.svc.services.get('logs').model, 100, [])
  const batch = Array.from({ length: 20 }, (_, i) => call(i + 1, 'list_logs', { perPage: 100 }))
  const results = (
    await app.inject({ method: 'POST', url: '/mcp', headers: { ...JSON_RPC, ...u.headers }, payload: batch })
  ).json()
  t.equal(
    results.filter((r: any) => r.result.isError !== true).length,
    Math.floor(5000 / price),
    `${Math.floor(5000 / price)} pages of ${price} fit the minute`
  )
  t.match(
    JSON.parse(results[19].result.content[0].text).error,
    { code: 'RATE_LIMITED', details: { limit: 5000 } },
    'the rest are RATE_LIMITED tool errors'
  )
})

t.test(
  'with a rate limiter, each call of a batch is one request: those past the budget are refused, not run',
  async (t) => {
    const { app } = await buildApp(t, {
      first: async (app) => {
        await app.register(svcSurface, { rateLimit: { apiPerMin: 3 }, docs: false, loadShedding: false })
      }
    })
    const u = makeUser()
    const batch = [
      call(1, 'create_logs', { record: { line: 'a' } }),
      cancel(9),
      call(2, 'create_logs', { record: { line: 'b' } }),
      call(3, 'list_logs'),
      call(4, 'create_logs', { record: { line: 'c' } }),
      call(5, 'list_logs')
    ]
    const answers = (
      await app.inject({
        method: 'POST',
        url: '/mcp',
        headers: { ...JSON_RPC, ...u.headers },
        payload: batch,
        remoteAddress: '10.4.0.1'
      })
    ).json()
    t.same(
      answers.map((a: any) => a.id),
      [1, 2, 3, 4, 5],
      'answered in order'
    )
    t.same(
      answers.map((a: any) => a.result !== undefined),
      [true, true, true, false, false],
      'three requests fit the minute'
    )
    t.match(answers[3], {
      error: {
        code: -32000,
        message: /rate limit exceeded/,
        data: { error: { code: 'RATE_LIMITED', details: { limit: 3 } } }
      }
    })
    t.same(
      (
        await app.svc.db
          .collection('logs')
          .find({}, { projection: { _id: 0, line: 1 } })
          .toArray()
      )
        .map((r) => r.line)
        .sort(),
      ['a', 'b'],
      'the refused create did not run'
    )
  }
)

t.test('a call cancelled inside its batch is dropped from the answer, the others are answered', async (t) => {
  const hold = holdWrites()
  const { app } = await buildApp(t, {
    before: (app) => {
      app.svc.services.get('logs').onWrite(hold.hook)
    }
  })
  t.teardown(hold.release)
  const u = makeUser()
  const started = performance.now()
  const res = await app.inject({
    method: 'POST',
    url: '/mcp',
    headers: { ...JSON_RPC, ...u.headers },
    payload: [call(1, 'create_logs', { record: { line: 'held' } }), cancel(1), call(2, 'list_logs')]
  })
  t.ok(performance.now() - started < 3000, 'answered without waiting for the cancelled call')
  t.equal(res.statusCode, 200)
  const answers = res.json()
  t.same(
    (Array.isArray(answers) ? answers : [answers]).map((a: any) => a.id),
    [2],
    'no response for the cancelled call (the spec: none is due)'
  )
  const alone = await app.inject({
    method: 'POST',
    url: '/mcp',
    headers: { ...JSON_RPC, ...u.headers },
    payload: [call(7, 'create_logs', { record: { line: 'held' } }), cancel(7)]
  })
  t.equal(alone.statusCode, 202, 'a batch left with nothing to answer is accepted')
  const early = await app.inject({
    method: 'POST',
    url: '/mcp',
    headers: { ...JSON_RPC, ...u.headers },
    payload: [cancel(3), call(3, 'list_logs')]
  })
  t.equal(early.json().id, 3, 'a cancellation before its request cancels nothing')
})

t.test('cancelled calls hold nothing: a flood of them, a second client served meanwhile', async (t) => {
  let held = 0
  const hold = holdWrites()
  const { app } = await buildApp(t, {
    before: (app) => {
      app.svc.services.get('logs').onWrite(async () => {
        held++
        await hold.hook()
      })
    }
  })
  t.teardown(hold.release)
  const attacker = makeUser()
  const victim = makeUser()
  let n = 0
  // Each POST: ten writes that would never finish, each cancelled by the same POST.
  const flood = async (): Promise<number> => {
    const batch = []
    for (let i = 0; i < 10; i++) {
      const id = ++n
      batch.push(call(id, 'create_logs', { record: { line: `held ${id}` } }), cancel(id))
    }
    const res = await app.inject({
      method: 'POST',
      url: '/mcp',
      headers: { ...JSON_RPC, ...attacker.headers },
      payload: batch
    })
    return res.statusCode
  }
  const { victimMs, attacks } = await latencyUnderAttack(flood, async () => await victimCall(app, victim.headers), {
    concurrency: 20
  })
  t.same([...new Set(attacks)], [202], '200 cancelled calls in 20 POSTs: each POST accepted, nothing to answer')
  t.equal(held, 0, 'none of them ran, so none holds a write or its memory')
  t.ok(victimMs < 3000, `the other client waited ${Math.round(victimMs)} ms at most`)
})

t.test('shutdown: a pending call is answered with an error and app.close() finishes', async (t) => {
  const hold = holdWrites()
  const { app, url } = await buildApp(t, {
    mcp: { shutdownGraceMs: 300 },
    before: (app) => {
      app.svc.services.get('logs').onWrite(hold.hook)
    }
  })
  t.teardown(hold.release)
  const u = makeUser()
  const pending = fetch(url, {
    method: 'POST',
    headers: { ...JSON_RPC, ...u.headers },
    body: JSON.stringify(call(1, 'create_logs', { record: { line: 'pending' } }))
  })
  await new Promise((resolve) => setTimeout(resolve, 300))
  const started = performance.now()
  await app.close()
  const closeMs = performance.now() - started
  t.ok(closeMs < 3000, `app.close() took ${Math.round(closeMs)} ms (grace 300 ms)`)
  const res = await pending
  t.equal(res.status, 200)
  t.match(await res.json(), { id: 1, error: { code: -32000, message: /shutting down/ } }, 'the pending call is told')
})

t.test('options are checked', async (t) => {
  await t.rejects(buildApp(t, { mcp: { shutdownGraceMs: -1 } }), /shutdownGraceMs/)
})
