import t from 'tap'
import { tokenUser } from '@svc/testkit'
import { runAgent, SECRET, startService } from './helper.js'

// Issue 22, low: the log recorded full URLs (a refresh token sent to /oauth/callback, every link
// code); errors showed the service's and the model's internal addresses to the person.

t.test('no link code, token or cookie in any log line', async (t) => {
  const svc = await startService(t)
  const agent = runAgent({
    PORT: '0',
    SVC_URL: svc.url,
    AGENT_AUTH_MODE: 'per-user',
    AGENT_MODEL: 'm',
    AGENT_LLM_URL: 'http://127.0.0.1:1/v1',
    AGENT_SESSION_SECRET: 'w'.repeat(40),
    STORE_URL: 'memory:'
  })
  t.teardown(() => {
    agent.kill()
  })
  const url = await agent.url
  const res = await fetch(`${url}/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ message: 'hi' })
  })
  const nonce = ((await res.json()) as any).error.details.linkUrl.split('/link/')[1] as string
  const cookie = String(res.headers.get('set-cookie')).split(';')[0]
  await fetch(`${url}/link/${nonce}`, { headers: { cookie } })
  await fetch(`${url}/link/${nonce}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', cookie },
    body: JSON.stringify({ email: 'x@example.test', password: 'hunter2-password' })
  })
  await fetch(`${url}/oauth/callback?refresh_token=rt-SEKRET-123&state=s`)
  await fetch(`${url}/oauth/callback?rt-BARE-SEKRET`)
  agent.kill()
  await agent.done
  const log = agent.stdout()
  t.match(log, /"url":"\/link\/\[redacted\]"/, 'link requests are logged, their code is not')
  t.match(log, /"url":"\/oauth\/callback\?\[redacted\]"/)
  for (const secret of [nonce, 'SEKRET', 'hunter2', cookie.split('=')[1]]) {
    t.notOk(log.includes(secret), `the log does not contain ${secret.slice(0, 12)}…`)
  }
})

t.test('errors a person sees name no internal address; the log keeps it', async (t) => {
  const svc = await startService(t)
  const bearer = tokenUser(SECRET).headers.authorization.slice(7)
  const modelDown = runAgent({
    PORT: '0',
    SVC_URL: svc.url,
    SVC_BEARER: bearer,
    AGENT_MODEL: 'm',
    AGENT_LLM_URL: 'http://127.0.0.1:1/v1'
  })
  const svcDown = runAgent({
    PORT: '0',
    SVC_URL: 'http://127.0.0.1:2',
    SVC_BEARER: bearer,
    AGENT_MODEL: 'm',
    AGENT_LLM_URL: 'http://127.0.0.1:1/v1'
  })
  t.teardown(() => {
    modelDown.kill()
    svcDown.kill()
  })
  const stream = await (
    await fetch(`${await modelDown.url}/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'hi' })
    })
  ).text()
  t.match(
    stream,
    /event: done\ndata: {"type":"done","ok":false,"error":{"code":"SERVICE_UNAVAILABLE","message":"model API unreachable: ECONNREFUSED","details":{"reason":"UNREACHABLE"}}}/
  )
  t.notMatch(stream, /127\.0\.0\.1/)
  const down = await fetch(`${await svcDown.url}/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ message: 'hi' })
  })
  t.equal(down.status, 503)
  t.same(await down.json(), {
    error: { code: 'SERVICE_UNAVAILABLE', message: 'the service is unavailable, try again later' }
  })
  modelDown.kill()
  svcDown.kill()
  await Promise.all([modelDown.done, svcDown.done])
  t.match(
    modelDown.stdout(),
    /"internal":"http:\/\/127\.0\.0\.1:1\/v1\/chat\/completions"/,
    "the operator's log names the model endpoint"
  )
  t.match(svcDown.stdout(), /"internal":"http:\/\/127\.0\.0\.1:2\/mcp: /, 'and the service endpoint')
})
