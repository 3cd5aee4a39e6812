import { randomBytes } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import t from 'tap'
import { redisAnswers, registerUser, TEST_REDIS_URL, type Teardownable } from '@svc/testkit'
import { openStore } from '../src/index.js'
import { startScriptedModel } from '../src/testing/index.js'
import { cookieOf, createRecord, cuidOf, startAgent, startService } from './helper.js'

// Two agents on one Redis store, as two processes behind one address: a link code issued by
// one is signed in on the other, and their refreshes of one person's token never collide (the
// service revokes a refresh token family on reuse, which would unlink the person).

const redisUp = await redisAnswers()
if (!redisUp) {
  process.stderr.write(
    `\n!!! @svc/agent two-agents-on-Redis test SKIPPED: no Redis answers at ${TEST_REDIS_URL} !!!\n\n`
  )
  t.plan(0, `no Redis at ${TEST_REDIS_URL}`)
  process.exit(0)
}

const svc = await startService(t)
const model = await startScriptedModel('openai')
t.teardown(model.close)
const person = await registerUser(svc.app)
await createRecord(svc, person.headers, 'contacts', { name: 'Shared-across-agents' })
const url = `${TEST_REDIS_URL}/0?keyPrefix=svc-agent-test-${randomBytes(4).toString('hex')}:`

async function agent (t: Teardownable) {
  const store = await openStore(url)
  t.teardown(async () => await store.close())
  return {
    store,
    app: await startAgent(t, model, {
      svcUrl: svc.url,
      sessionSecret: 'redis-agents-session-secret-0123456789',
      store,
      publicUrl: 'https://agent.example.test',
      auth: { mode: 'per-user', accessTtlSeconds: 2, refreshSkewSeconds: 1 }
    })
  }
}

t.test('a code from one agent, signed in on the other; refreshes shared, never doubled', async (t) => {
  const a = await agent(t)
  const b = await agent(t)
  const unlinked = await a.app.inject({ method: 'POST', url: '/chat', payload: { message: 'hi' } })
  const path = new URL(unlinked.json().error.details.linkUrl).pathname
  t.equal((await b.app.inject({ method: 'GET', url: path })).statusCode, 200, 'the other agent knows the code')
  const linked = await b.app.inject({
    method: 'POST',
    url: path,
    payload: { email: person.user.email, password: person.password },
    headers: { accept: 'application/json' }
  })
  t.same(linked.json(), { linked: true })
  const cookie = cookieOf(linked)
  t.equal((await a.app.inject({ method: 'GET', url: path })).statusCode, 404, 'used up for both')
  const key = `default:http:${cuidOf(cookie)}`
  const first = (await a.store.get(key))?.refreshToken

  await sleep(1200)
  // Both agents find the token due at once: one refreshes, the other waits and uses its result.
  const answers = await Promise.all(
    [a, b, a, b].map(
      async (x) =>
        await x.app.inject({
          method: 'POST',
          url: '/chat',
          headers: { cookie },
          payload: { message: 'hello', stream: false }
        })
    )
  )
  for (const res of answers) t.equal(res.statusCode, 200, res.body.slice(0, 200))
  for (const x of [a, b]) {
    model.push({ toolCalls: [{ name: 'list_contacts', args: {} }] }, { text: 'ok' })
    const res = await x.app.inject({
      method: 'POST',
      url: '/chat',
      headers: { cookie },
      payload: { message: 'contacts?', stream: false }
    })
    t.same(
      res.json().toolCalls[0].result.results.map((r: any) => r.name),
      ['Shared-across-agents'],
      'each agent acts as the person'
    )
  }
  const second = (await b.store.get(key))?.refreshToken
  t.not(second, first, 'rotated')
  const refresh = await svc.app.inject({ method: 'POST', url: '/auth/refresh', payload: { refreshToken: second } })
  t.equal(refresh.statusCode, 200, 'the stored refresh token is the live one: the family was never revoked')
})
