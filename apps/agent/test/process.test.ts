import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { tokenUser } from '@svc/testkit'
import { startScriptedModel } from '@svc/agent/testing'
import { runAgent, SECRET, startService } from './helper.js'

t.test('a bad environment stops the process with every problem named', async (t) => {
  const { done } = runAgent({ AGENT_LLM_PROVIDER: 'cohere' })
  const { code, stderr } = await done
  t.equal(code, 1)
  t.match(stderr, /SVC_BEARER/)
  t.match(stderr, /AGENT_LLM_PROVIDER/)
  t.match(stderr, /AGENT_MODEL/)
})

t.test('npx -y pnpm@10 agent: healthz, then a streamed chat over the live service', async (t) => {
  const svc = await startService(t)
  const model = await startScriptedModel('openai')
  t.teardown(model.close)
  const user = tokenUser(SECRET)
  const agent = runAgent({
    PORT: '0',
    SVC_URL: svc.url,
    SVC_BEARER: user.headers.authorization.slice(7),
    AGENT_MODEL: 'scripted',
    AGENT_LLM_URL: model.url,
    AGENT_SESSION_SECRET: 'x'.repeat(40)
  })
  t.teardown(agent.kill)
  const url = await agent.url
  const health = await fetch(`${url}/healthz`)
  t.equal(health.status, 200)
  t.ok(health.headers.get('x-request-id'), 'request id header')
  model.push({ toolCalls: [{ name: 'list_notes', args: {} }] }, { text: 'No notes yet.' })
  const res = await fetch(`${url}/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ message: 'notes?' })
  })
  t.equal(res.status, 200)
  const body = await res.text()
  t.match(body, /event: tool_call\ndata: {"type":"tool_call","name":"list_notes"/)
  t.match(body, /event: final\ndata: {"type":"final","text":"No notes yet."/)
  t.match(body, /event: done\ndata: {"type":"done","ok":true}/)
  agent.kill()
  t.equal((await agent.done).code, 0, 'SIGTERM closes gracefully')
})

t.test(
  'per-user mode: link URLs on the listening address; a second process on the same file store is refused',
  async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-agent-app-'))
    t.teardown(() => rmSync(dir, { recursive: true, force: true }))
    const env = {
      PORT: '0',
      AGENT_AUTH_MODE: 'per-user',
      AGENT_MODEL: 'm',
      AGENT_LLM_URL: 'http://127.0.0.1:1/v1',
      AGENT_SESSION_SECRET: 'y'.repeat(40),
      STORE_URL: `file:${join(dir, 'store.json')}`
    }
    const first = runAgent(env)
    t.teardown(first.kill)
    const url = await first.url
    const res = await fetch(`${url}/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'hi' })
    })
    t.equal(res.status, 401)
    const body = (await res.json()) as { error: { code: string; details: { linkUrl: string } } }
    t.equal(body.error.code, 'UNLINKED')
    t.ok(body.error.details.linkUrl.startsWith(`${url}/link/`), body.error.details.linkUrl)
    const second = runAgent(env)
    const { code, stderr } = await second.done
    t.equal(code, 1)
    t.match(stderr, /in use by another process/)
    first.kill()
    t.equal((await first.done).code, 0)
  }
)
