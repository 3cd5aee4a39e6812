import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { redisAnswers, registerUser, TEST_REDIS_URL as REDIS_URL } from '@svc/testkit'
import { startScriptedModel } from '@svc/agent/testing'
import { runAgent, startService } from './helper.js'

// Issue 22, reliability: a supervisor restarting a killed agent, and several agent processes
// behind one address on STORE_URL=redis://.

const model = await startScriptedModel('openai')
t.teardown(model.close)
const perUser = {
  PORT: '0',
  AGENT_AUTH_MODE: 'per-user',
  AGENT_MODEL: 'scripted',
  AGENT_SESSION_SECRET: 'z'.repeat(40),
  AGENT_COOKIE_SECURE: 'false'
}

async function unlinked (url: string, cookie?: string): Promise<{ linkUrl: string; cookie: string }> {
  const res = await fetch(`${url}/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(cookie != null ? { cookie } : {}) },
    body: JSON.stringify({ message: 'hi' })
  })
  const body = (await res.json()) as { error: { code: string; details: { linkUrl: string } } }
  if (body.error.code !== 'UNLINKED') throw new Error(JSON.stringify(body))
  return { linkUrl: body.error.details.linkUrl, cookie: String(res.headers.get('set-cookie')).split(';')[0] }
}

t.test("SIGKILL, then the supervisor's immediate restart on the same file store", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-agent-restart-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const svc = await startService(t)
  const person = await registerUser(svc.app as any)
  const env = { ...perUser, SVC_URL: svc.url, AGENT_LLM_URL: model.url, STORE_URL: `file:${join(dir, 'store.json')}` }
  const first = runAgent(env)
  t.teardown(() => {
    first.kill('SIGKILL')
  })
  const url = await first.url
  const { linkUrl, cookie } = await unlinked(url)
  const linked = await fetch(linkUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ email: person.user.email, password: person.password })
  })
  t.equal(linked.status, 200)
  first.kill('SIGKILL')
  t.equal((await first.done).code, null, 'killed, no graceful close')

  const second = runAgent(env)
  t.teardown(() => {
    second.kill()
  })
  const again = await Promise.race([second.url, second.done.then(({ stderr }) => `exited: ${stderr}`)])
  t.match(again, /^http:\/\/127\.0\.0\.1:\d+$/, 'the restart listens at once')
  model.push({ text: 'Still linked.' })
  const res = await fetch(`${again}/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie },
    body: JSON.stringify({ message: 'hi', stream: false })
  })
  t.equal(res.status, 200, 'the link survived the crash')
  t.equal(((await res.json()) as { text: string }).text, 'Still linked.')
})

const redisUp = await redisAnswers(REDIS_URL)
if (!redisUp) {
  process.stderr.write(
    `\n!!! @svc/agent-app two-processes-on-Redis test SKIPPED: no Redis answers at ${REDIS_URL} !!!\n\n`
  )
}

t.test('two agent processes on one Redis store', { skip: redisUp ? false : `no Redis at ${REDIS_URL}` }, async (t) => {
  const svc = await startService(t)
  const person = await registerUser(svc.app as any)
  const env = {
    ...perUser,
    SVC_URL: svc.url,
    AGENT_LLM_URL: model.url,
    STORE_URL: `${REDIS_URL}/0?keyPrefix=svc-agent-app-test-${randomBytes(4).toString('hex')}:`
  }
  const a = runAgent(env)
  const b = runAgent(env)
  t.teardown(() => {
    a.kill()
    b.kill()
  })
  const [urlA, urlB] = await Promise.all([a.url, b.url])
  const { linkUrl, cookie } = await unlinked(urlA)
  t.equal(
    (await unlinked(urlB, cookie)).linkUrl.split('/link/')[1],
    linkUrl.split('/link/')[1],
    'the other process hands out the same code to that browser'
  )
  const onB = `${urlB}${new URL(linkUrl).pathname}`
  const linked = await fetch(onB, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ email: person.user.email, password: person.password })
  })
  t.equal(linked.status, 200, 'signed in on the process that did not issue the code')
  for (const url of [urlA, urlB]) {
    model.push({ text: 'Linked here too.' })
    const res = await fetch(`${url}/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie },
      body: JSON.stringify({ message: 'hi', stream: false })
    })
    t.equal(res.status, 200, url)
  }
  a.kill()
  b.kill()
  t.same([(await a.done).code, (await b.done).code], [0, 0])
})
