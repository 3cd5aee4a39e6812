import t from 'tap'
import { registerUser, tokenUser, type Teardownable } from '@svc/testkit'
import { openStore } from '../src/index.js'
import { startScriptedModel } from '../src/testing/index.js'
import { JWT_SECRET, cookieOf, startAgent, startService } from './helper.js'

// Issue 22: login CSRF on /link, cross-site and form-encoded /chat, and link URLs that follow
// the loopback name the page was opened on.

const svc = await startService(t)
const model = await startScriptedModel('openai')
t.teardown(model.close)
const SECRET = 'csrf-test-session-secret-0123456789abcdef'
const attacker = await registerUser(svc.app)

async function perUser (t: Teardownable, publicUrl?: string) {
  return await startAgent(t, model, {
    svcUrl: svc.url,
    sessionSecret: SECRET,
    store: await openStore('memory:'),
    auth: { mode: 'per-user' },
    ...(publicUrl != null ? { publicUrl } : {})
  })
}

/** The attacker's own link code and form (token and cookie), as they would fetch them. */
async function attackerForm (agent: Awaited<ReturnType<typeof perUser>>, host = 'localhost:3100') {
  const unlinked = await agent.inject({ method: 'POST', url: '/chat', headers: { host }, payload: { message: 'hi' } })
  const path = new URL(unlinked.json().error.details.linkUrl).pathname
  const form = await agent.inject({ method: 'GET', url: path, headers: { host } })
  return { path, token: /name="_form" value="([^"]+)"/.exec(form.body)?.[1] as string, cookie: cookieOf(form) }
}

const formBody = (token?: string): string =>
  `email=${encodeURIComponent(attacker.user.email)}&password=${encodeURIComponent(attacker.password)}${token != null ? `&_form=${encodeURIComponent(token)}` : ''}`

t.test('POST /link refuses a sign-in another site makes the browser send', async (t) => {
  const agent = await perUser(t)
  const own = 'http://localhost:3100'
  const { path, token, cookie } = await attackerForm(agent)
  const form = (headers: Record<string, string>, token?: string) =>
    agent.inject({
      method: 'POST',
      url: path,
      payload: formBody(token),
      headers: { host: 'localhost:3100', 'content-type': 'application/x-www-form-urlencoded', ...headers }
    })
  for (const [what, res] of [
    ['a foreign Origin, even with a valid token', await form({ origin: 'https://evil.example', cookie }, token)],
    ['Origin null (a sandboxed frame)', await form({ origin: 'null', cookie }, token)],
    ['a foreign Referer without Origin', await form({ referer: 'https://evil.example/page', cookie }, token)],
    ["the attacker's token without their cookie (the victim's browser)", await form({ origin: own }, token)],
    ['no token', await form({ origin: own, cookie })],
    ['a token for another code', await form({ origin: own, cookie }, (await attackerForm(agent)).token)]
  ] as const) {
    t.equal(res.statusCode, 403, what)
    t.match(res.body, /role="alert"/, what)
    t.notOk(String(res.headers['set-cookie'] ?? '').includes('svc_agent_session'), `${what}: no session`)
  }
  const json = await agent.inject({
    method: 'POST',
    url: path,
    payload: { email: attacker.user.email, password: attacker.password },
    headers: { host: 'localhost:3100', origin: 'https://evil.example', accept: 'application/json' }
  })
  t.equal(json.statusCode, 403, 'JSON from a foreign origin')
  t.match(json.json().error, {
    code: 'FORBIDDEN',
    message: /must come from its own page \(http:\/\/localhost:3100\), not from https:\/\/evil\.example/
  })
  const suppressed = await form({ 'sec-fetch-site': 'cross-site', cookie }, token)
  t.equal(suppressed.statusCode, 403, 'a browser post whose page suppressed Referer still says it is cross-site')
  const bare = await form({ 'sec-fetch-site': 'same-origin' })
  t.equal(bare.statusCode, 403, "a browser's form post without the token")
  const ok = await form({ origin: own, cookie }, token)
  t.equal(ok.statusCode, 200, 'the form as served, from its own page')
  t.match(String(ok.headers['set-cookie']), /svc_agent_session=/)
})

t.test('a client that is not a browser (no Origin, Referer or Sec-Fetch-Site) may post the form fields', async (t) => {
  const agent = await perUser(t)
  const { path } = await attackerForm(agent)
  const res = await agent.inject({
    method: 'POST',
    url: path,
    payload: formBody(),
    headers: { host: 'localhost:3100', 'content-type': 'application/x-www-form-urlencoded' }
  })
  t.equal(res.statusCode, 200, 'spec: form fields email and password')
  t.match(res.body, /Account linked/)
})

t.test("POST /chat takes JSON only, from the agent's own page", async (t) => {
  const agent = await startAgent(t, model, {
    svcUrl: svc.url,
    auth: { mode: 'service', bearer: tokenUser(JWT_SECRET).headers.authorization.slice(7) }
  })
  const form = await agent.inject({
    method: 'POST',
    url: '/chat',
    payload: 'message=hi',
    headers: { 'content-type': 'application/x-www-form-urlencoded' }
  })
  t.equal(form.statusCode, 415)
  t.equal(form.json().error.code, 'UNSUPPORTED_MEDIA_TYPE')
  const text = await agent.inject({
    method: 'POST',
    url: '/chat',
    payload: '{"message":"hi"}',
    headers: { 'content-type': 'text/plain' }
  })
  t.equal(text.statusCode, 415, 'text/plain, which a cross-site form or no-cors fetch may send')
  const before = model.requests.length
  const foreign = await agent.inject({
    method: 'POST',
    url: '/chat',
    payload: { message: 'hi' },
    headers: { origin: 'https://evil.example' }
  })
  t.equal(foreign.statusCode, 403)
  t.equal(foreign.json().error.code, 'FORBIDDEN')
  const rebound = await agent.inject({
    method: 'POST',
    url: '/chat',
    payload: { message: 'hi' },
    headers: { host: 'rebound.evil.example:3100', origin: 'http://rebound.evil.example:3100' }
  })
  t.equal(
    rebound.statusCode,
    403,
    'a DNS name pointed at the agent (rebinding) is not its own page without AGENT_LINK_BASE_URL'
  )
  t.match(rebound.json().error.message, /set AGENT_LINK_BASE_URL/)
  t.equal(model.requests.length, before, 'none of them reached the model')
  for (const [host, origin] of [
    ['localhost:3100', 'http://localhost:3100'],
    ['127.0.0.1:3100', 'http://127.0.0.1:3100'],
    ['[::1]:3100', 'http://[::1]:3100']
  ]) {
    model.push({ text: 'ok' })
    const res = await agent.inject({
      method: 'POST',
      url: '/chat',
      payload: { message: 'hi', stream: false },
      headers: { host, origin }
    })
    t.equal(res.statusCode, 200, origin)
  }
  model.push({ text: 'ok' })
  t.equal(
    (await agent.inject({ method: 'POST', url: '/chat', payload: { message: 'hi', stream: false } })).statusCode,
    200,
    "no Origin: not a browser's cross-site request"
  )

  const named = await startAgent(t, model, {
    svcUrl: svc.url,
    publicUrl: 'https://chat.example.test',
    auth: { mode: 'service', bearer: tokenUser(JWT_SECRET).headers.authorization.slice(7) }
  })
  model.push({ text: 'ok' })
  t.equal(
    (
      await named.inject({
        method: 'POST',
        url: '/chat',
        payload: { message: 'hi', stream: false },
        headers: { origin: 'https://chat.example.test' }
      })
    ).statusCode,
    200
  )
  const opened = await named.inject({
    method: 'POST',
    url: '/chat',
    payload: { message: 'hi' },
    headers: { host: 'localhost:3100', origin: 'http://localhost:3100' }
  })
  t.equal(opened.statusCode, 403, 'with a public URL, only its origin')
  t.match(
    opened.json().error.message,
    /\(https:\/\/chat\.example\.test\), not from http:\/\/localhost:3100/,
    'says where the page lives'
  )
})

t.test('link URLs follow the loopback name the page was opened on', async (t) => {
  const agent = await perUser(t)
  for (const host of ['localhost:3100', '127.0.0.1:3100']) {
    const res = await agent.inject({ method: 'POST', url: '/chat', headers: { host }, payload: { message: 'hi' } })
    t.match(res.json().error.details.linkUrl, new RegExp(`^http://${host.replace(/\./g, '\\.')}/link/`), host)
  }
  const named = await agent.inject({
    method: 'POST',
    url: '/chat',
    headers: { host: 'agent.evil.example' },
    payload: { message: 'hi' }
  })
  t.notMatch(
    named.json().error.details.linkUrl,
    /evil/,
    'a Host name is not trusted for links without AGENT_LINK_BASE_URL'
  )
  const configured = await perUser(t, 'https://chat.example.test/')
  const res = await configured.inject({
    method: 'POST',
    url: '/chat',
    headers: { host: 'localhost:3100' },
    payload: { message: 'hi' }
  })
  t.match(res.json().error.details.linkUrl, /^https:\/\/chat\.example\.test\/link\//)
})
