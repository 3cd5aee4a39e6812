import t from 'tap'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { fetchFresh } from './fixtures/fresh-http.js'
import { workspace } from './fixtures/workspace.js'
import { BIN, baseEnv, startSvc, stop } from './fixtures/svc-process.js'

const run = promisify(execFile)

// Each CLI call is a fresh process (tsx compile, devdb start): give the file room on a slow box.
t.setTimeout(240_000)

async function svc (args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  const { stdout } = await run(process.execPath, [BIN, ...args], { env })
  return stdout.trim()
}

t.test('svc start with an invalid environment lists every problem and exits 1', async (t) => {
  const ws = workspace()
  const env = baseEnv(ws, { NODE_ENV: 'production', JWT_SECRET: '', ACCESS_TOKEN_TTL: '3h', PAGE_SIZE: '500' })
  const err = await run(process.execPath, [BIN, 'start'], { env }).then(
    () => null,
    (e: { code: number; stderr: string }) => e
  )
  t.equal(err?.code, 1, 'exit code 1')
  for (const name of ['JWT_SECRET', 'MONGODB_URI', 'ACCESS_TOKEN_TTL', 'PAGE_SIZE']) {
    t.match(err?.stderr, new RegExp(`- ${name} `), `names ${name}`)
  }
})

t.test('svc start serves /healthz, minted tokens work, admin commands take effect, SIGTERM exits 0', async (t) => {
  const ws = workspace()
  const env = baseEnv(ws)

  const first = await startSvc(t, env)
  t.match(first.url, /^http:\/\/127\.0\.0\.1:\d+$/, 'prints where it listens')
  {
    const res = await fetchFresh(`${first.url}/healthz`)
    t.equal(res.status, 200, 'GET /healthz')
    t.match(res.headers.get('x-request-id'), /^[0-9a-f-]{36}$/)
  }
  {
    const token = await svc(
      ['token', 'mint', '--user-id', 'u-cli', '--email', 'cli@example.test', '--roles', 'user', '--ttl', '10m'],
      env
    )
    t.match(token, /^[\w-]+\.[\w-]+\.[\w-]+$/, 'svc token mint prints one JWT')
    const created = await fetchFresh(`${first.url}/api/v1/notes`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'from the cli token' })
    })
    t.equal(created.status, 201, 'minted token accepted by the server')
    t.match(await created.json(), { userId: 'u-cli', title: 'from the cli token' })
    const published = await fetchFresh(`${first.url}/api/v1/notes`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'public note', published: true })
    })
    t.equal(published.status, 201, 'published note created')
    const otherToken = await svc(['token', 'mint', '--user-id', 'u-other', '--email', 'other@example.test'], env)
    const others = await fetchFresh(`${first.url}/api/v1/notes`, {
      method: 'POST',
      headers: { authorization: `Bearer ${otherToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title: "another tenant's note", published: true })
    })
    t.equal(others.status, 201, "another tenant's published note created")
    const forged = await svc(['token', 'mint', '--user-id', 'u-cli', '--email', 'cli@example.test'], {
      ...env,
      JWT_SECRET: 'another-secret'
    })
    t.equal(
      (await fetchFresh(`${first.url}/api/v1/notes`, { headers: { authorization: `Bearer ${forged}` } })).status,
      401,
      'token signed with another secret refused'
    )
  }
  const email = 'Admin.Me@Example.test'
  {
    const res = await fetchFresh(`${first.url}/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ first_name: 'A', last_name: 'B', email, password: 'long-enough-password' })
    })
    t.equal(res.status, 201, 'POST /register')
  }
  t.match(first.stdout().split('\n')[0], /^\{.*\}$/, 'JSON log lines on stdout')
  t.equal(await stop(first), 0, 'SIGTERM → exit 0')

  // The embedded database is single-process, so admin commands run while the server is stopped.
  t.equal(
    await svc(['users', 'set-roles', email, 'user,admin'], env),
    'roles of admin.me@example.test set to user,admin'
  )
  const clientId = await svc(['clients', 'create', '--role', 'public', '--name', 'website'], env)
  t.match(clientId, /^cl_[0-9a-f]{32}$/, 'svc clients create prints the id')
  const ownedId = await svc(['clients', 'create', '--role', 'public', '--owner', 'u-cli'], env)
  t.match(ownedId, /^cl_[0-9a-f]{32}$/, 'svc clients create --owner prints the id')
  const badOwner = await run(
    process.execPath,
    [BIN, 'clients', 'create', '--role', 'public', '--owner', 'has spaces'],
    { env }
  ).then(
    () => null,
    (e: { code: number; stderr: string }) => e
  )
  t.equal(badOwner?.code, 1, 'a malformed --owner → exit 1')
  t.match(badOwner?.stderr, /--owner must be a user id/)
  const missing = await run(process.execPath, [BIN, 'users', 'set-roles', 'nobody@example.test', 'admin'], {
    env
  }).then(
    () => null,
    (e: { code: number; stderr: string }) => e
  )
  t.equal(missing?.code, 1, 'unknown user → exit 1')
  t.match(missing?.stderr, /no user with e-mail/)

  const second = await startSvc(t, env)
  {
    const res = await fetchFresh(`${second.url}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password: 'long-enough-password' })
    })
    t.equal(res.status, 200, 'data persisted in DATA_DIR across restarts')
    t.same((await res.json()).user.roles, ['user', 'admin'], 'set-roles effective')
  }
  {
    const read = await fetchFresh(`${second.url}/api/v1/notes`, { headers: { 'x-client-id': clientId } })
    t.equal(read.status, 200, 'client id can read')
    t.same(
      (await read.json()).results.map((r: { title: string }) => r.title).sort(),
      ["another tenant's note", 'public note'],
      'an operator client: what acl.scope.public allows, every tenant'
    )
    const owned = await fetchFresh(`${second.url}/api/v1/notes`, { headers: { 'x-client-id': ownedId } })
    t.same(
      (await owned.json()).results.map((r: { title: string }) => r.title),
      ['public note'],
      "a client with --owner: its tenant's records only, through the scope"
    )
    const write = await fetchFresh(`${second.url}/api/v1/notes`, {
      method: 'POST',
      headers: { 'x-client-id': clientId, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'nope' })
    })
    t.equal(write.status, 403, 'client id cannot write')
    const unknown = await fetchFresh(`${second.url}/api/v1/notes`, { headers: { 'x-client-id': 'cl_unknown' } })
    t.equal(unknown.status, 401, 'unknown client id')
  }
  t.equal(await stop(second), 0, 'SIGTERM → exit 0')
})
