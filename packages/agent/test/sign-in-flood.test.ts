import t from 'tap'
import Fastify from 'fastify'
import svcCore from '@svc/core'
import svcMcp from '@svc/mcp'
import svcSurface from '@svc/surface'
import { getTestDb, registerUser, type Teardownable } from '@svc/testkit'
import { openStore } from '../src/index.js'
import { agentConversationsSchema } from '../src/schemas/index.js'
import { startScriptedModel } from '../src/testing/index.js'
import { JWT_SECRET, contactsSchema, startAgent } from './helper.js'

// Issue 22: every sign-in through the agent reaches the service from the agent's own address,
// so the service's per-address sign-in limit (RATE_LIMIT_AUTH_PER_MIN) counted every person as
// one: ten wrong passwords a minute locked everybody out of linking (503). The agent now sends
// the person's address as X-Forwarded-For; a service that trusts the agent as its proxy
// (TRUST_PROXY) counts per person. These floods go through the agent against a real service
// with its real rate limits (@svc/surface), its sign-in limit at 5 a minute.

const AUTH_PER_MIN = 5
const model = await startScriptedModel('openai')
t.teardown(model.close)

async function service (t: Teardownable, trustAgent: boolean): Promise<{ url: string, people: Array<Awaited<ReturnType<typeof registerUser>>> }> {
  const { db } = await getTestDb(t)
  const app = Fastify({ logger: false, ...(trustAgent ? { trustProxy: ['127.0.0.1'] } : {}) })
  await app.register(svcSurface, { rateLimit: { authPerMin: AUTH_PER_MIN }, docs: false, loadShedding: false, metrics: false })
  await app.register(svcCore, { db, jwtSecret: JWT_SECRET, bcryptRounds: 4, schemas: [contactsSchema, agentConversationsSchema] as any })
  await app.register(svcMcp)
  t.teardown(async () => await app.close())
  await app.listen({ host: '127.0.0.1', port: 0 })
  // Through /register from the test's own address (4 of its 5 a minute): the floods come from others.
  const people = []
  for (let i = 0; i < 4; i++) people.push(await registerUser(app))
  return { url: `http://127.0.0.1:${(app.server.address() as { port: number }).port}`, people }
}

async function agentFor (t: Teardownable, svcUrl: string) {
  return await startAgent(t, model, { svcUrl, sessionSecret: 'flood-test-session-secret-0123456789abcdef', store: await openStore('memory:'), auth: { mode: 'per-user' }, limits: { signInsPerMinute: 100 } })
}

/** A fresh link code for whoever is at `address`, then one sign-in with it. */
async function signIn (agent: Awaited<ReturnType<typeof agentFor>>, address: string, email: string, password: string) {
  const code = new URL((await agent.inject({ method: 'POST', url: '/chat', remoteAddress: address, payload: { message: 'hi' } })).json().error.details.linkUrl).pathname
  return await agent.inject({ method: 'POST', url: code, remoteAddress: address, payload: { email, password }, headers: { accept: 'application/json' } })
}

t.test('the service trusts the agent as its proxy: a flood locks out only its own address', async (t) => {
  const { url, people: [victim, other, ...many] } = await service(t, true)
  const agent = await agentFor(t, url)

  // One person's account, hammered from one address.
  const flood: number[] = []
  for (let i = 0; i < AUTH_PER_MIN + 3; i++) flood.push((await signIn(agent, '203.0.113.66', victim.user.email, `wrong-${i}`)).statusCode)
  t.same(flood, [...Array(AUTH_PER_MIN).fill(401), 429, 429, 429], 'the attacker\'s address is stopped by the service')
  const stopped = await signIn(agent, '203.0.113.66', victim.user.email, victim.password)
  t.equal(stopped.statusCode, 429, 'even with the right password, from that address')
  t.match(stopped.json().error, { code: 'RATE_LIMITED', message: /too many sign-in attempts/ })
  t.ok(Number(stopped.headers['retry-after']) > 0, 'with Retry-After from the service')

  // Many people's accounts, one wrong password each, from another address.
  const spray: number[] = []
  for (const p of [...many, other, victim, ...many]) spray.push((await signIn(agent, '203.0.113.77', p.user.email, 'guess')).statusCode)
  t.same(spray.slice(AUTH_PER_MIN), [429], 'the sprayer is stopped after its budget too')

  // Everyone else, each from their own address, links at once.
  t.equal((await signIn(agent, '198.51.100.10', victim.user.email, victim.password)).statusCode, 200, 'the victim links from home')
  t.equal((await signIn(agent, '198.51.100.11', other.user.email, other.password)).statusCode, 200, 'another person links')
})

t.test('a service that does not trust the agent counts it as one address: people get 429, not 503', async (t) => {
  const { url, people: [victim, other] } = await service(t, false)
  const agent = await agentFor(t, url)
  for (let i = 0; i < AUTH_PER_MIN; i++) await signIn(agent, '203.0.113.66', victim.user.email, 'wrong')
  const res = await signIn(agent, '198.51.100.11', other.user.email, other.password)
  t.equal(res.statusCode, 429, 'documented: set TRUST_PROXY on the service to the agent\'s address')
  t.equal(res.json().error.code, 'RATE_LIMITED')
})
