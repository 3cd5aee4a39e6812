import { execFile } from 'node:child_process'
import { existsSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import t from 'tap'
import { fetchFresh } from './fixtures/fresh-http.js'
import { workspace } from './fixtures/workspace.js'
import { BIN, baseEnv, startSvc, stop } from './fixtures/svc-process.js'

// Issue 22, the newcomer path: the quick-start server has a random JWT_SECRET, so the agent's
// SVC_BEARER could not be minted for it. `svc token --user` does it in one command.

const run = promisify(execFile)
t.setTimeout(240_000)

t.test('svc token --user against a server started without JWT_SECRET', async (t) => {
  const ws = workspace()
  const env = baseEnv(ws, { JWT_SECRET: '' })
  const server = await startSvc(t, env)
  const kept = join(ws.dataDir, 'jwt-secret')
  t.equal(statSync(kept).mode & 0o777, 0o600, 'the generated secret is kept for local tools, owner-only')
  const registered = await fetchFresh(`${server.url}/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      first_name: 'Ada',
      last_name: 'L',
      email: 'ada@example.test',
      password: 'analytical-engine'
    })
  })
  t.equal(registered.status, 201)
  const userId = ((await registered.json()) as { user: { _id: string } }).user._id
  const cli = { ...env, PUBLIC_BASE_URL: server.url }

  const { stdout } = await run(
    process.execPath,
    [BIN, 'token', '--user', 'ada@example.test', '--password', 'analytical-engine'],
    { env: cli }
  )
  const token = stdout.trim()
  const claims = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString())
  t.match(claims, { user_id: userId, email: 'ada@example.test', roles: ['agent'] })
  t.equal(claims.exp - claims.iat, 30 * 24 * 3600, '30 days by default')
  const tools = await fetchFresh(`${server.url}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream'
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' })
  })
  t.equal(tools.status, 200, 'the server accepts it')

  const wrong = await run(process.execPath, [BIN, 'token', '--user', 'ada@example.test', '--password', 'nope'], {
    env: cli
  }).then(
    () => null,
    (e: { code: number; stderr: string }) => e
  )
  t.equal(wrong?.code, 1)
  t.match(wrong?.stderr, /\/login refused ada@example\.test \(401 UNAUTHENTICATED\)/)
  const stale = await run(
    process.execPath,
    [BIN, 'token', '--user', 'ada@example.test', '--password', 'analytical-engine'],
    { env: { ...cli, JWT_SECRET: 'not-the-servers-secret-0123456789' } }
  ).then(
    () => null,
    (e: { code: number; stderr: string }) => e
  )
  t.match(stale?.stderr, /does not accept tokens signed with this secret: set JWT_SECRET/)

  t.equal(await stop(server), 0)
  t.notOk(existsSync(kept), 'the kept secret goes with the server')
  const gone = await run(
    process.execPath,
    [BIN, 'token', '--user', 'ada@example.test', '--password', 'analytical-engine'],
    { env: cli }
  ).then(
    () => null,
    (e: { code: number; stderr: string }) => e
  )
  t.match(gone?.stderr, /no server answers at/)
})
