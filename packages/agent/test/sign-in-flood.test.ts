import { randomBytes } from 'node:crypto'
import t from 'tap'
import Fastify from 'fastify'
import svcCore from '@svc/core'
import svcMcp from '@svc/mcp'
import svcSurface from '@svc/surface'
import { getTestDb, type Teardownable } from '@svc/testkit'
import { openStore } from '../src/index.js'
import { agentConversationsSchema } from '../src/schemas/index.js'
import { startScriptedModel } from '../src/testing/index.js'
import { JWT_SECRET, contactsSchema, startAgent } from './helper.js'

// Issue 22: every sign-in through the agent reaches the service from the agent's own address,
// so the service's per-address sign-in limit (RATE_LIMIT_AUTH_PER_MIN) counted every person as
// one: ten wrong passwords a minute locked everybody out of linking (503). The agent now sends
// the person's address as X-Forwarded-For; a service that trusts the agent as its proxy
// (TRUST_PROXY) counts per person, and limits each e-mail address on its own. These floods go
// through the agent against a real service with its real limits (@svc/surface): 5 sign-ins a
// minute per address and 5 per e-mail.

const AUTH_PER_MIN = 5
const AUTH_PER_EMAIL_PER_MIN = 5
const model = await startScriptedModel('openai')
t.teardown(model.close)

interface Person {
  email: string
  password: string
}

async function service (
  t: Teardownable,
  trustAgent: boolean,
  count: number
): Promise<{ url: string; people: Person[] }> {
  const { db } = await getTestDb(t)
  const app = Fastify({ logger: false, ...(trustAgent ? { trustProxy: ['127.0.0.1'] } : {}) })
  await app.register(svcSurface, {
    rateLimit: { authPerMin: AUTH_PER_MIN, authPerEmailPerMin: AUTH_PER_EMAIL_PER_MIN },
    docs: false,
    loadShedding: false,
    metrics: false
  })
  await app.register(svcCore, {
    db,
    jwtSecret: JWT_SECRET,
    bcryptRounds: 4,
    schemas: [contactsSchema, agentConversationsSchema] as any
  })
  await app.register(svcMcp)
  t.teardown(async () => await app.close())
  await app.listen({ host: '127.0.0.1', port: 0 })
  // Each from an address of its own: /register counts against the same per-address limit.
  const people: Person[] = []
  for (let i = 0; i < count; i++) {
    const person = {
      email: `person-${i}-${randomBytes(3).toString('hex')}@example.test`,
      password: 'correct horse battery staple'
    }
    const res = await app.inject({
      method: 'POST',
      url: '/register',
      remoteAddress: `192.0.2.${i + 1}`,
      payload: { first_name: 'P', last_name: String(i), ...person }
    })
    if (res.statusCode !== 201) throw new Error(`register: ${res.statusCode} ${res.body}`)
    people.push(person)
  }
  return { url: `http://127.0.0.1:${(app.server.address() as { port: number }).port}`, people }
}

async function agentFor (t: Teardownable, svcUrl: string) {
  return await startAgent(t, model, {
    svcUrl,
    sessionSecret: 'flood-test-session-secret-0123456789abcdef',
    store: await openStore('memory:'),
    auth: { mode: 'per-user' },
    limits: { signInsPerMinute: 100 }
  })
}

/** A fresh link code for whoever is at `address`, then one sign-in with it. */
async function signIn (agent: Awaited<ReturnType<typeof agentFor>>, address: string, email: string, password: string) {
  const code = new URL(
    (await agent.inject({ method: 'POST', url: '/chat', remoteAddress: address, payload: { message: 'hi' } })).json()
      .error.details.linkUrl
  ).pathname
  return await agent.inject({
    method: 'POST',
    url: code,
    remoteAddress: address,
    payload: { email, password },
    headers: { accept: 'application/json' }
  })
}

t.test('the service trusts the agent as its proxy: each flood stops only what it aims at', async (t) => {
  const {
    url,
    people: [victim, other, target, ...many]
  } = await service(t, true, 8)
  const agent = await agentFor(t, url)

  // One person's account, hammered from one address.
  const flood: number[] = []
  for (let i = 0; i < AUTH_PER_MIN + 3; i++) {
    flood.push((await signIn(agent, '203.0.113.66', victim.email, `wrong-${i}`)).statusCode)
  }
  // Registering counted once against the victim's e-mail: four wrong passwords are left this minute.
  t.same(
    flood,
    [
      ...Array(AUTH_PER_EMAIL_PER_MIN - 1).fill(401),
      ...Array(AUTH_PER_MIN + 3 - (AUTH_PER_EMAIL_PER_MIN - 1)).fill(429)
    ],
    'the attacker is stopped by the service'
  )
  const stopped = await signIn(agent, '203.0.113.66', other.email, other.password)
  t.equal(stopped.statusCode, 429, 'that address is stopped for every account')
  t.match(stopped.json().error, { code: 'RATE_LIMITED', message: /too many sign-in attempts/ })
  t.ok(Number(stopped.headers['retry-after']) > 0, 'with Retry-After from the service')
  const victimHome = await signIn(agent, '198.51.100.10', victim.email, victim.password)
  t.equal(
    victimHome.statusCode,
    429,
    "the attacked account itself waits a minute, from anywhere (the service's per-e-mail limit)"
  )

  // Many people's accounts, one wrong password each, from another address.
  const spray: number[] = []
  for (const p of [...many, target, ...many]) {
    spray.push((await signIn(agent, '203.0.113.77', p.email, 'guess')).statusCode)
  }
  t.same(
    spray,
    [...Array(AUTH_PER_MIN).fill(401), ...Array(spray.length - AUTH_PER_MIN).fill(429)],
    'the sprayer is stopped after its budget'
  )

  // One account, one guess from each of many addresses.
  const distributed: number[] = []
  for (let i = 0; i < AUTH_PER_EMAIL_PER_MIN + 2; i++) {
    distributed.push((await signIn(agent, `203.0.113.${100 + i}`, target.email, `guess-${i}`)).statusCode)
  }
  t.same(distributed.slice(-2), [429, 429], 'spread over addresses, the guesses at one account are still counted')

  // Everyone else, each from their own address, links at once.
  t.equal((await signIn(agent, '198.51.100.11', other.email, other.password)).statusCode, 200, 'another person links')
  t.equal(
    (await signIn(agent, '198.51.100.12', many[0].email, many[0].password)).statusCode,
    200,
    'so does one whose account the sprayer guessed at once'
  )
})

t.test('a service that does not trust the agent counts it as one address: people get 429, not 503', async (t) => {
  const {
    url,
    people: [victim, other]
  } = await service(t, false, 2)
  const agent = await agentFor(t, url)
  for (let i = 0; i < AUTH_PER_MIN; i++) await signIn(agent, '203.0.113.66', victim.email, 'wrong')
  const res = await signIn(agent, '198.51.100.11', other.email, other.password)
  t.equal(res.statusCode, 429, "documented: set TRUST_PROXY on the service to the agent's address")
  t.equal(res.json().error.code, 'RATE_LIMITED')
})
