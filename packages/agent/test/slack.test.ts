import { createHmac } from 'node:crypto'
import { createServer } from 'node:http'
import t from 'tap'
import Fastify from 'fastify'
import { registerUser, tokenUser } from '@svc/testkit'
import { createModel, openStore, svcAgent, type AgentOptions } from '../src/index.js'
import { verifySlackSignature } from '../src/kit.js'
import { startScriptedModel } from '../src/testing/index.js'
import { JWT_SECRET, createRecord, startService } from './helper.js'

const SIGNING = 'slack-signing-secret-for-tests'
const svc = await startService(t)
const model = await startScriptedModel('openai')
t.teardown(model.close)

// A local stand-in for Slack's Web API: records every chat.postMessage / chat.postEphemeral.
const posted: Array<{ method: string; auth: string | undefined; body: any }> = []
const waiters: Array<() => void> = []
const slackApi = createServer((req, res) => {
  let raw = ''
  req.on('data', (c: Buffer) => {
    raw += c.toString()
  })
  req.on('end', () => {
    posted.push({ method: String(req.url).slice(1), auth: req.headers.authorization, body: JSON.parse(raw) })
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}')
    waiters.splice(0).forEach((w) => w())
  })
})
await new Promise<void>((resolve) => slackApi.listen(0, '127.0.0.1', resolve))
t.teardown(() => {
  slackApi.close()
})
const apiUrl = `http://127.0.0.1:${(slackApi.address() as { port: number }).port}`

async function nextPost (): Promise<(typeof posted)[number]> {
  const count = posted.length
  while (posted.length === count) await new Promise<void>((resolve) => waiters.push(resolve))
  return posted[posted.length - 1]
}

async function agentWith (auth: AgentOptions['auth'], extra: Partial<AgentOptions> = {}) {
  const app = Fastify({ logger: false })
  await app.register(svcAgent, {
    ...extra,
    svcUrl: svc.url,
    auth,
    sessionSecret: 'slack-test-session-secret-0123456789',
    model: createModel({ provider: 'openai', url: model.url, model: 'scripted', retries: 0 }),
    slack: { signingSecret: SIGNING, botToken: 'xoxb-test', apiUrl }
  })
  t.teardown(async () => await app.close())
  return app
}

function signed (
  body: unknown,
  opts: { secret?: string; at?: number } = {}
): { headers: Record<string, string>; payload: string } {
  const payload = JSON.stringify(body)
  const ts = String(Math.floor((opts.at ?? Date.now()) / 1000))
  const sig = `v0=${createHmac('sha256', opts.secret ?? SIGNING)
    .update(`v0:${ts}:${payload}`)
    .digest('hex')}`
  return {
    payload,
    headers: { 'content-type': 'application/json', 'x-slack-request-timestamp': ts, 'x-slack-signature': sig }
  }
}

let n = 0
function message (user: string, text: string, extra: Record<string, unknown> = {}): unknown {
  n++
  return {
    type: 'event_callback',
    team_id: 'T1',
    event_id: `Ev${n}`,
    event: { type: 'message', user, text, channel: 'D1', ts: `${n}.000`, ...extra }
  }
}

t.test('signature checks', async (t) => {
  const agent = await agentWith({ mode: 'service', bearer: tokenUser(JWT_SECRET).headers.authorization.slice(7) })
  const challenge = { type: 'url_verification', challenge: 'abc123' }
  const good = signed(challenge)
  const ok = await agent.inject({ method: 'POST', url: '/slack/events', ...good })
  t.same(ok.json(), { challenge: 'abc123' })
  for (const [what, req] of [
    ['wrong secret', signed(challenge, { secret: 'other' })],
    ['stale timestamp', signed(challenge, { at: Date.now() - 301_000 })],
    ['tampered body', { ...good, payload: good.payload.replace('abc123', 'abc124') }],
    ['no signature', { payload: good.payload, headers: { 'content-type': 'application/json' } }]
  ] as const) {
    const res = await agent.inject({ method: 'POST', url: '/slack/events', ...req })
    t.equal(res.statusCode, 401, what)
    t.equal(res.json().error.code, 'UNAUTHENTICATED', what)
  }
  t.notOk(verifySlackSignature(SIGNING, 'x1', '{}', 'v0=00'), 'a non-numeric timestamp')
  const bad = signed('not json')
  const notJson = await agent.inject({ method: 'POST', url: '/slack/events', headers: bad.headers, payload: 'nope' })
  t.equal(notJson.statusCode, 401, 'the signature covers the body')
})

t.test('a message is answered in its thread, with tables as text; bots and retries are ignored', async (t) => {
  const user = tokenUser(JWT_SECRET)
  await createRecord(svc, user.headers, 'contacts', { name: 'Slacky' })
  const agent = await agentWith({ mode: 'service', bearer: user.headers.authorization.slice(7) })
  model.push(
    { toolCalls: [{ name: 'list_contacts', args: {} }] },
    { toolCalls: [{ name: 'render_table', args: { columns: ['name'], rows: [['Slacky']] } }] },
    { text: 'One contact.' }
  )
  const event = message('U1', 'contacts?')
  const waiting = nextPost()
  const res = await agent.inject({ method: 'POST', url: '/slack/events', ...signed(event) })
  t.same(res.json(), { ok: true }, 'acknowledged at once')
  const post = await waiting
  t.equal(post.method, 'chat.postMessage')
  t.equal(post.auth, 'Bearer xoxb-test')
  t.equal(post.body.channel, 'D1')
  t.equal(post.body.thread_ts, (event as any).event.ts)
  t.equal(post.body.text, 'One contact.\n\n```\nname\nSlacky\n```')

  const before = posted.length
  const requests = model.requests.length
  await agent.inject({ method: 'POST', url: '/slack/events', ...signed(event) })
  await agent.inject({ method: 'POST', url: '/slack/events', ...signed(message('U1', 'echo', { bot_id: 'B1' })) })
  await agent.inject({
    method: 'POST',
    url: '/slack/events',
    ...signed(message('U1', 'edited', { subtype: 'message_changed' }))
  })
  await new Promise((resolve) => setTimeout(resolve, 200))
  t.equal(posted.length, before, 'a redelivered event, a bot message and an edit get no answer')
  t.equal(model.requests.length, requests)
})

t.test('per-user: an unlinked Slack user gets a private link; once linked, answers act as that account', async (t) => {
  const person = await registerUser(svc.app)
  await createRecord(svc, person.headers, 'contacts', { name: 'Mine-in-slack' })
  const agent = await agentWith(
    { mode: 'per-user' },
    { store: await openStore('memory:'), publicUrl: 'https://agent.example.test' }
  )
  const waiting = nextPost()
  await agent.inject({ method: 'POST', url: '/slack/events', ...signed(message('U9', 'my contacts?')) })
  const ephemeral = await waiting
  t.equal(ephemeral.method, 'chat.postEphemeral')
  t.equal(ephemeral.body.user, 'U9')
  const linkUrl = /https:\/\/agent\.example\.test(\/link\/\S+)/.exec(ephemeral.body.text)
  t.ok(linkUrl, ephemeral.body.text)
  const linked = await agent.inject({
    method: 'POST',
    url: (linkUrl as RegExpExecArray)[1],
    payload: { email: person.user.email, password: person.password },
    headers: { accept: 'application/json' }
  })
  t.same(linked.json(), { linked: true })
  t.notOk(linked.headers['set-cookie'], 'no browser session for a Slack user')

  model.push({ toolCalls: [{ name: 'list_contacts', args: {} }] }, { text: 'done' })
  const answered = nextPost()
  await agent.inject({ method: 'POST', url: '/slack/events', ...signed(message('U9', 'my contacts?')) })
  await answered
  t.same(
    model.requests
      .at(-1)
      .messages.find((m: any) => m.role === 'tool')
      .content.includes('Mine-in-slack'),
    true,
    "the linked account's records"
  )
})

t.test('a failing turn tells the Slack user', async (t) => {
  const agent = await agentWith({ mode: 'service', bearer: tokenUser(JWT_SECRET).headers.authorization.slice(7) })
  model.push({ status: 500, body: 'down' })
  const waiting = nextPost()
  await agent.inject({ method: 'POST', url: '/slack/events', ...signed(message('U2', 'hi')) })
  const post = await waiting
  t.equal(post.body.text, 'Sorry, I could not answer: model API answered 500')
})
