import t from 'tap'
import { registerUser, tokenUser } from '@svc/testkit'
import { openStore } from '../src/index.js'
import { MAX_PENDING_PER_ISSUER } from '../src/store/local-state.js'
import { startScriptedModel } from '../src/testing/index.js'
import { JWT_SECRET, cookieOf, startAgent, startService } from './helper.js'

// Issue 22: anonymous /chat minted link codes without limit into a store that evicted the oldest;
// chat turns had no budget at all.

const svc = await startService(t)
const model = await startScriptedModel('openai')
t.teardown(model.close)
const SECRET = 'abuse-test-session-secret-0123456789abcdef'
const person = await registerUser(svc.app)

const chat = (
  agent: Awaited<ReturnType<typeof startAgent>>,
  remoteAddress: string,
  headers: Record<string, string> = {}
) => agent.inject({ method: 'POST', url: '/chat', remoteAddress, headers, payload: { message: 'hi', stream: false } })

t.test("a link-code flood is refused without evicting anyone's live code", async (t) => {
  const agent = await startAgent(t, model, {
    svcUrl: svc.url,
    sessionSecret: SECRET,
    store: await openStore('memory:'),
    auth: { mode: 'per-user' },
    publicUrl: 'https://agent.example.test'
  })
  const waiting = await chat(agent, '198.51.100.1')
  const livePath = new URL(waiting.json().error.details.linkUrl).pathname
  const again = await chat(agent, '198.51.100.1', { cookie: cookieOf(waiting) })
  t.equal(
    again.json().error.details.linkUrl,
    waiting.json().error.details.linkUrl,
    'the same browser keeps its one code'
  )

  const statuses: number[] = []
  for (let i = 0; i < MAX_PENDING_PER_ISSUER + 10; i++) statuses.push((await chat(agent, '203.0.113.9')).statusCode)
  t.equal(statuses.filter((s) => s === 401).length, MAX_PENDING_PER_ISSUER, "codes up to the address's quota")
  t.equal(statuses.filter((s) => s === 429).length, 10, 'then RATE_LIMITED')
  const refused = await chat(agent, '203.0.113.9')
  t.match(refused.json().error, { code: 'RATE_LIMITED', details: { retryAfterSeconds: 900 } })
  t.equal(refused.headers['retry-after'], '900')

  t.equal(
    (await agent.inject({ method: 'GET', url: livePath })).statusCode,
    200,
    'the code issued before the flood still works'
  )
  t.equal((await chat(agent, '198.51.100.2')).statusCode, 401, 'another address still gets a code')
  const linked = await agent.inject({
    method: 'POST',
    url: livePath,
    remoteAddress: '198.51.100.1',
    payload: { email: person.user.email, password: person.password },
    headers: { accept: 'application/json' }
  })
  t.same(linked.json(), { linked: true })
})

t.test('chat turns per address and per chat user', async (t) => {
  const agent = await startAgent(t, model, {
    svcUrl: svc.url,
    auth: { mode: 'service', bearer: tokenUser(JWT_SECRET).headers.authorization.slice(7) },
    limits: { chatPerMinute: 8, chatPerMinutePerUser: 3 }
  })
  const first = await chat(agent, '198.51.100.5')
  const cookie = cookieOf(first)
  const mine = [first.statusCode]
  for (let i = 0; i < 4; i++) mine.push((await chat(agent, '198.51.100.5', { cookie })).statusCode)
  t.same(mine, [200, 200, 200, 200, 429], 'three turns a minute in one conversation after the one that started it')
  const limited = await chat(agent, '198.51.100.5', { cookie })
  t.match(limited.json().error, {
    code: 'RATE_LIMITED',
    message: /too many chat messages in this conversation, try again in \d+ s/
  })
  t.ok(Number(limited.headers['retry-after']) > 0)
  const others = []
  for (let i = 0; i < 3; i++) others.push((await chat(agent, '198.51.100.5')).statusCode)
  t.same(others, [200, 200, 429], "the address's budget of eight is spent (new conversations count too)")
  t.equal((await chat(agent, '198.51.100.6')).statusCode, 200, 'another address is not affected')
})

t.test('sign-in attempts per address', async (t) => {
  const agent = await startAgent(t, model, {
    svcUrl: svc.url,
    sessionSecret: SECRET,
    store: await openStore('memory:'),
    auth: { mode: 'per-user' },
    limits: { signInsPerMinute: 4 }
  })
  const statuses: number[] = []
  for (let i = 0; i < 6; i++) {
    const code = new URL((await chat(agent, '203.0.113.20')).json().error.details.linkUrl).pathname
    statuses.push(
      (
        await agent.inject({
          method: 'POST',
          url: code,
          remoteAddress: '203.0.113.20',
          payload: { email: person.user.email, password: 'wrong' },
          headers: { accept: 'application/json' }
        })
      ).statusCode
    )
  }
  t.same(statuses, [401, 401, 401, 401, 429, 429])
  const code = new URL((await chat(agent, '198.51.100.30')).json().error.details.linkUrl).pathname
  const ok = await agent.inject({
    method: 'POST',
    url: code,
    remoteAddress: '198.51.100.30',
    payload: { email: person.user.email, password: person.password },
    headers: { accept: 'application/json' }
  })
  t.equal(ok.statusCode, 200, 'the person, from their own address, links')
})
