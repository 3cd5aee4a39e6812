import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import t from 'tap'
import { registerUser, type Teardownable } from '@svc/testkit'
import { openStore, type AgentStore } from '../src/index.js'
import { FileStore } from '../src/kit.js'
import { sessionKey, signSession } from '../src/auth/session-cookie.js'
import { startScriptedModel } from '../src/testing/index.js'
import { cookieOf, createRecord, parseSse, startAgent, startService } from './helper.js'

const SESSION_SECRET = 'per-user-session-secret-0123456789abcdef'
const BASE = 'https://agent.example.test'
const svc = await startService(t)
const model = await startScriptedModel('openai')
t.teardown(model.close)
const alice = await registerUser(svc.app)
const bob = await registerUser(svc.app)
await createRecord(svc, alice.headers, 'contacts', { name: 'Alice-contact' })
await createRecord(svc, bob.headers, 'contacts', { name: 'Bob-contact' })

async function perUserAgent (t: Teardownable, store: AgentStore, extra: Record<string, unknown> = {}) {
  return await startAgent(t, model, {
    svcUrl: svc.url,
    sessionSecret: SESSION_SECRET,
    cookieSecure: true,
    store,
    publicUrl: BASE,
    auth: { mode: 'per-user', ...extra }
  })
}

function nonceOf (linkUrl: string): string {
  return linkUrl.slice(`${BASE}/link/`.length)
}

/** Chat → UNLINKED → sign in on the link page → the session cookie. */
async function link (
  agent: Awaited<ReturnType<typeof perUserAgent>>,
  user: { user: { email: string }; password: string }
): Promise<string> {
  const res = await agent.inject({ method: 'POST', url: '/chat', payload: { message: 'hi' } })
  const nonce = nonceOf(res.json().error.details.linkUrl)
  const linked = await agent.inject({
    method: 'POST',
    url: `/link/${nonce}`,
    payload: { email: user.user.email, password: user.password },
    headers: { accept: 'application/json' }
  })
  if (linked.statusCode !== 200) throw new Error(`link failed: ${linked.statusCode} ${linked.body}`)
  return cookieOf(linked)
}

async function listedNames (agent: Awaited<ReturnType<typeof perUserAgent>>, cookie: string): Promise<string[]> {
  model.push({ toolCalls: [{ name: 'list_contacts', args: {} }] }, { text: 'ok' })
  const res = await agent.inject({
    method: 'POST',
    url: '/chat',
    headers: { cookie },
    payload: { message: 'contacts?', stream: false }
  })
  if (res.statusCode !== 200) throw new Error(`chat failed: ${res.statusCode} ${res.body}`)
  return res.json().toolCalls[0].result.results.map((r: any) => r.name)
}

t.test('linking end to end: UNLINKED, the sign-in page, the cookie, then chat as that user', async (t) => {
  const store = await openStore('memory:')
  const agent = await perUserAgent(t, store)
  const before = model.requests.length
  const unlinked = await agent.inject({ method: 'POST', url: '/chat', payload: { message: 'hi' } })
  t.equal(unlinked.statusCode, 401)
  const { error } = unlinked.json()
  t.equal(error.code, 'UNLINKED')
  t.match(error.details.linkUrl, new RegExp(`^${BASE}/link/[A-Za-z0-9_-]{32}$`))
  t.equal(model.requests.length, before, 'the model was not asked')
  const nonce = nonceOf(error.details.linkUrl)

  const form = await agent.inject({ method: 'GET', url: `/link/${nonce}` })
  t.equal(form.statusCode, 200)
  t.match(form.headers['content-type'], /text\/html/)
  t.match(form.body, /<form method="post">/)
  t.match(form.body, /name="password" type="password"/)
  t.equal(form.headers['referrer-policy'], 'same-origin', 'the nonce does not leak through Referer to other sites')
  t.match(form.headers['content-security-policy'], /default-src 'none'/)
  const formToken = /name="_form" value="([^"]+)"/.exec(form.body)?.[1] as string
  const formCookie = cookieOf(form)
  t.match(
    String(form.headers['set-cookie']),
    /^svc_agent_link=[^;]+; Max-Age=900; Path=\/link\/; HttpOnly; Secure; SameSite=Strict$/
  )
  const posted = (body: string) => ({
    method: 'POST' as const,
    url: `/link/${nonce}`,
    payload: `${body}&_form=${encodeURIComponent(formToken)}`,
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: formCookie }
  })

  const wrong = await agent.inject(posted(`email=${encodeURIComponent(alice.user.email)}&password=nope`))
  t.equal(wrong.statusCode, 401)
  t.match(wrong.body, /role="alert">Wrong email or password/)
  t.notOk(wrong.headers['set-cookie'])

  const missing = await agent.inject({
    method: 'POST',
    url: `/link/${nonce}`,
    payload: { email: alice.user.email },
    headers: { accept: 'application/json' }
  })
  t.equal(missing.statusCode, 400)
  t.equal(missing.json().error.code, 'VALIDATION')

  const ok = await agent.inject(
    posted(`email=${encodeURIComponent(alice.user.email)}&password=${encodeURIComponent(alice.password)}`)
  )
  t.equal(ok.statusCode, 200)
  t.match(ok.body, /Account linked/)
  t.match(ok.body, /<a href="\/">Back to the chat<\/a>/, 'the way back to the chat')
  const [clearedForm, setCookie] = ok.headers['set-cookie'] as string[]
  t.match(clearedForm, /^svc_agent_link=; Max-Age=0; Path=\/link\//, 'the form token is done')
  t.match(setCookie, /^svc_agent_session=[^;]+; Max-Age=2592000; Path=\/; HttpOnly; Secure; SameSite=Lax$/)
  const payload = JSON.parse(Buffer.from(setCookie.split('=')[1].split('.')[0], 'base64url').toString())
  t.same(Object.keys(payload).sort(), ['cuid', 'exp', 'iat'])
  t.equal(payload.exp - payload.iat, 30 * 24 * 3600)
  t.notMatch(ok.body + setCookie + JSON.stringify(ok.headers), /refresh/i, 'no refresh token reaches the browser')
  const row = await store.get(`default:http:${String(payload.cuid)}`)
  t.equal(row?.userId, alice.user._id, 'the refresh token is stored for (channel, channelUserId)')

  const reuse = await agent.inject({ method: 'GET', url: `/link/${nonce}` })
  t.equal(reuse.statusCode, 404, 'the nonce is single use')
  const repost = await agent.inject({
    method: 'POST',
    url: `/link/${nonce}`,
    payload: { email: alice.user.email, password: alice.password },
    headers: { accept: 'application/json' }
  })
  t.same(repost.json(), { error: { code: 'NOT_FOUND', message: 'this link has expired or was already used' } })

  const cookie = setCookie.split(';')[0]
  t.same(await listedNames(agent, cookie), ['Alice-contact'])
  model.push({ text: 'streamed' })
  const streamed = await agent.inject({
    method: 'POST',
    url: '/chat',
    headers: { cookie },
    payload: { message: 'hello', channelUserId: 'bob' }
  })
  t.same(parseSse(streamed.body).at(-1)?.data, { type: 'done', ok: true })
})

t.test('two linked chat users are isolated; cookie tampering and expiry unlink', async (t) => {
  const store = await openStore('memory:')
  const agent = await perUserAgent(t, store)
  const aliceCookie = await link(agent, alice)
  const bobCookie = await link(agent, bob)
  t.same(await listedNames(agent, aliceCookie), ['Alice-contact'])
  t.same(await listedNames(agent, bobCookie), ['Bob-contact'])

  // Alice's signature on Bob's payload, and Bob's cuid under a re-encoded payload.
  const [alicePayload, aliceSig] = aliceCookie.split('=')[1].split('.')
  const [bobPayload] = bobCookie.split('=')[1].split('.')
  const swapped = `svc_agent_session=${bobPayload}.${aliceSig}`
  const bobCuid = JSON.parse(Buffer.from(bobPayload, 'base64url').toString()).cuid
  const edited = JSON.parse(Buffer.from(alicePayload, 'base64url').toString())
  edited.cuid = bobCuid
  const forged = `svc_agent_session=${Buffer.from(JSON.stringify(edited)).toString('base64url')}.${aliceSig}`
  const expired = `svc_agent_session=${signSession(sessionKey(SESSION_SECRET, 'default'), bobCuid, Date.now() - 31 * 24 * 3600 * 1000).value}`
  const otherKey = `svc_agent_session=${signSession(sessionKey(SESSION_SECRET, 'another-tenant'), bobCuid).value}`
  for (const [what, cookie] of [
    ['swapped signature', swapped],
    ['edited payload', forged],
    ['expired', expired],
    ['another AGENT_KEY', otherKey],
    ['garbage', 'svc_agent_session=abc'],
    ['no signature', `svc_agent_session=${bobPayload}`]
  ]) {
    const res = await agent.inject({ method: 'POST', url: '/chat', headers: { cookie }, payload: { message: 'x' } })
    t.equal(res.statusCode, 401, what)
    t.equal(res.json().error.code, 'UNLINKED', what)
  }
})

t.test('expired nonces are 404; five wrong passwords burn one', async (t) => {
  const agent = await perUserAgent(t, await openStore('memory:'), { linkTtlSeconds: 1 })
  const res = await agent.inject({ method: 'POST', url: '/chat', payload: { message: 'hi' } })
  const nonce = nonceOf(res.json().error.details.linkUrl)
  t.equal((await agent.inject({ method: 'GET', url: `/link/${nonce}` })).statusCode, 200)
  await sleep(1100)
  t.equal((await agent.inject({ method: 'GET', url: `/link/${nonce}` })).statusCode, 404)
  t.equal(
    (
      await agent.inject({
        method: 'POST',
        url: `/link/${nonce}`,
        payload: { email: alice.user.email, password: alice.password }
      })
    ).statusCode,
    404
  )

  const fresh = nonceOf(
    (await agent.inject({ method: 'POST', url: '/chat', payload: { message: 'hi' } })).json().error.details.linkUrl
  )
  const statuses: number[] = []
  for (let i = 0; i < 5; i++) {
    statuses.push(
      (
        await agent.inject({
          method: 'POST',
          url: `/link/${fresh}`,
          payload: { email: alice.user.email, password: 'wrong' },
          headers: { accept: 'application/json' }
        })
      ).statusCode
    )
  }
  t.same(statuses, [401, 401, 401, 401, 404])
  t.equal(
    (
      await agent.inject({
        method: 'POST',
        url: `/link/${fresh}`,
        payload: { email: alice.user.email, password: alice.password }
      })
    ).statusCode,
    404,
    'burned'
  )
})

t.test('access tokens are refreshed across AGENT_ACCESS_TTL_SECONDS; a revoked link unlinks', async (t) => {
  const store = await openStore('memory:')
  const agent = await perUserAgent(t, store, { accessTtlSeconds: 2, refreshSkewSeconds: 1 })
  const cookie = await link(agent, alice)
  const cuid = JSON.parse(Buffer.from(cookie.split('=')[1].split('.')[0], 'base64url').toString()).cuid
  const key = `default:http:${String(cuid)}`
  const first = (await store.get(key))?.refreshToken
  t.same(await listedNames(agent, cookie), ['Alice-contact'])
  t.equal((await store.get(key))?.refreshToken, first, 'within the TTL the cached token is used')
  await sleep(1100)
  t.same(await listedNames(agent, cookie), ['Alice-contact'])
  const second = (await store.get(key))?.refreshToken
  t.not(second, first, 'refreshed (and rotated) past TTL minus skew')

  // The service revokes the family when a rotated token is reused: the agent then unlinks.
  const reuse = await svc.app.inject({ method: 'POST', url: '/auth/refresh', payload: { refreshToken: first } })
  t.equal(reuse.statusCode, 401)
  await sleep(1100)
  const res = await agent.inject({ method: 'POST', url: '/chat', headers: { cookie }, payload: { message: 'x' } })
  t.equal(res.statusCode, 401)
  t.equal(res.json().error.code, 'UNLINKED')
  t.equal(await store.get(key), null, 'the dead row is removed')
})

t.test('deleting a store row unlinks that chat user', async (t) => {
  const store = await openStore('memory:')
  const agent = await perUserAgent(t, store, { accessTtlSeconds: 1, refreshSkewSeconds: 1 })
  const cookie = await link(agent, bob)
  const cuid = JSON.parse(Buffer.from(cookie.split('=')[1].split('.')[0], 'base64url').toString()).cuid
  await store.delete(`default:http:${String(cuid)}`)
  const res = await agent.inject({ method: 'POST', url: '/chat', headers: { cookie }, payload: { message: 'x' } })
  t.equal(res.json().error.code, 'UNLINKED')
})

t.test('the file store survives an agent restart and refuses a second process', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-agent-store-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const path = join(dir, 'nested', 'store.json')
  const store = await openStore(`file:${path}`)
  const agent = await perUserAgent(t, store)
  const cookie = await link(agent, alice)
  await t.rejects(FileStore.open(path), /in use by another process/)
  t.equal(statSync(path).mode & 0o777, 0o600, 'refresh tokens are readable by the owner only')
  t.equal(Object.keys(JSON.parse(readFileSync(path, 'utf8')).links).length, 1)
  await agent.close()
  await store.close()

  const reopened = await openStore(`file:${path}`)
  t.teardown(async () => await reopened.close())
  const restarted = await perUserAgent(t, reopened)
  t.same(await listedNames(restarted, cookie), ['Alice-contact'], 'no relinking after the restart')
})

t.test('store URLs and per-user settings are checked', async (t) => {
  await t.rejects(openStore('ftp://x'), /STORE_URL must be file:<path>, redis:\/\/… or memory:/)
  await t.rejects(openStore('file:'), /STORE_URL/)
  const dir = mkdtempSync(join(tmpdir(), 'svc-agent-store-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const bad = join(dir, 'bad.json')
  const { writeFileSync } = await import('node:fs')
  writeFileSync(bad, '{"hello":1}')
  await t.rejects(openStore(`file:${bad}`), /cannot read the store .*not an agent store/)
  const again = await openStore(`file:${bad}`).catch((err: Error) => err)
  t.match(again, /not an agent store/, 'a failed open released its lock')
  await t.rejects(
    startAgent(t, model, {
      svcUrl: svc.url,
      sessionSecret: 'short',
      store: await openStore('memory:'),
      auth: { mode: 'per-user' }
    }),
    /sessionSecret/
  )
  await t.rejects(
    startAgent(t, model, { svcUrl: svc.url, sessionSecret: SESSION_SECRET, auth: { mode: 'per-user' } }),
    /needs a store/
  )
})

t.test('/oauth/callback is always 403', async (t) => {
  const agent = await perUserAgent(t, await openStore('memory:'))
  for (const method of ['GET', 'POST'] as const) {
    const res = await agent.inject({ method, url: '/oauth/callback?refresh_token=abc' })
    t.equal(res.statusCode, 403)
    t.equal(res.json().error.code, 'FORBIDDEN')
    t.match(res.json().error.message, /\/link\//)
  }
})
