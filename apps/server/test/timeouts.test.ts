import t from 'tap'
import { getTestDb, latencyUnderAttack, signToken, trickle } from '@svc/testkit'
import { loadConfig } from '../src/config.js'
import { startServer } from '../src/start.js'
import { workspace } from './fixtures/workspace.js'

// Issue 21, on the reference server: REQUEST_TIMEOUT_MS bounds how long a request may take to
// arrive, on every surface (REST, GraphQL, MCP); bodies trickling in are answered 408 in the
// envelope while other clients are served.

const SECRET = 'timeouts-test-secret'
const bearer = (userId: string): string =>
  `Bearer ${signToken({ user_id: userId, email: `${userId}@example.test`, roles: ['user'] }, SECRET)}`

t.test('REQUEST_TIMEOUT_MS: trickling bodies on REST, GraphQL and MCP get 408; others are served', async (t) => {
  const { uri } = await getTestDb(t)
  const { config, problems } = loadConfig({
    NODE_ENV: 'test',
    PORT: '0',
    JWT_SECRET: SECRET,
    MONGODB_URI: uri,
    SCHEMA_DIR: workspace().schemaDir,
    REQUEST_TIMEOUT_MS: '1000'
  })
  if (config == null) throw new Error(problems.join('; '))
  const server = await startServer(config, { logger: false })
  t.teardown(async () => await server.close())
  const url = new URL(server.url)
  const paths = ['/api/v1/notes', '/graphql', '/mcp']
  let i = 0
  const { victimMs, attacks } = await latencyUnderAttack(
    async () => {
      const path = paths[i++ % paths.length]
      const head = `POST ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: ${bearer('65f0000000000000000000a1')}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 50000\r\n\r\n{`
      return { path, ...(await trickle(url.hostname, Number(url.port), head, ' '.repeat(1000))) }
    },
    async () => {
      const res = await fetch(`${server.url}/api/v1/notes`, {
        headers: { authorization: bearer('65f0000000000000000000b2') }
      })
      if (res.status !== 200) throw new Error(`the victim got ${res.status}`)
      await res.arrayBuffer()
    },
    { concurrency: 60 }
  )
  t.ok(victimMs < 2000, `another client waited ${Math.round(victimMs)} ms at most while 60 bodies trickled`)
  for (const path of paths) {
    const mine = attacks.filter((a) => a.path === path)
    t.ok(
      mine.every((a) => a.status === 408 && JSON.parse(a.body).error.code === 'REQUEST_TIMEOUT'),
      `${path}: 408 REQUEST_TIMEOUT for all ${mine.length}`
    )
    t.ok(
      Math.max(...mine.map((a) => a.ms)) < 4000,
      `${path}: within ${Math.round(Math.max(...mine.map((a) => a.ms)))} ms`
    )
  }
})

t.test('shutdown with an MCP call pending: the call is answered, the server closes, the database too', async (t) => {
  const { uri } = await getTestDb(t)
  const { config, problems } = loadConfig({
    NODE_ENV: 'test',
    PORT: '0',
    JWT_SECRET: SECRET,
    MONGODB_URI: uri,
    SCHEMA_DIR: workspace().schemaDir
  })
  if (config == null) throw new Error(problems.join('; '))
  const server = await startServer(config, { logger: false })
  t.teardown(async () => await server.close())
  // A write subscriber that never lets its write answer: a call that stays pending.
  let release = (): void => {}
  server.app.svc.services.get('notes').onWrite(async () => {
    await new Promise<void>((resolve) => {
      release = resolve
    })
  })
  t.teardown(() => {
    release()
  })
  const rpc = {
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'create_notes', arguments: { record: { title: 'pending' } } }
  }
  const pending = fetch(`${server.url}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: bearer('65f0000000000000000000a1')
    },
    body: JSON.stringify(rpc)
  })
  await new Promise((resolve) => setTimeout(resolve, 300))
  const started = performance.now()
  await server.close()
  const ms = performance.now() - started
  t.ok(ms < 8000, `closed in ${Math.round(ms)} ms, inside close-with-grace's 10 s`)
  t.match(await (await pending).json(), { id: 1, error: { message: /shutting down/ } }, 'the pending call is answered')
  await t.rejects(server.database.db.command({ ping: 1 }), 'the database client is closed')
})

t.test('each call of an MCP batch counts against the API rate limit', async (t) => {
  const { uri } = await getTestDb(t)
  const { config, problems } = loadConfig({
    NODE_ENV: 'development',
    PORT: '0',
    JWT_SECRET: SECRET,
    MONGODB_URI: uri,
    SCHEMA_DIR: workspace().schemaDir,
    RATE_LIMIT_API_PER_MIN: '3'
  })
  if (config == null) throw new Error(problems.join('; '))
  const server = await startServer(config, { logger: false })
  t.teardown(async () => await server.close())
  const batch = Array.from({ length: 5 }, (_, i) => ({
    jsonrpc: '2.0',
    id: i + 1,
    method: 'tools/call',
    params: { name: 'list_notes', arguments: {} }
  }))
  const res = await fetch(`${server.url}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: bearer('65f0000000000000000000c3')
    },
    body: JSON.stringify(batch)
  })
  const answers = (await res.json()) as Array<{
    id: number
    result?: unknown
    error?: { message: string; data: { error: { code: string } } }
  }>
  t.same(
    answers.map((a) => a.id),
    [1, 2, 3, 4, 5],
    'every call answered, in order'
  )
  t.equal(answers.filter((a) => a.result !== undefined).length, 3, 'three calls fit the minute')
  t.match(
    answers[4].error,
    { message: /rate limit exceeded/, data: { error: { code: 'RATE_LIMITED' } } },
    'the others carry the envelope'
  )
  const next = await fetch(`${server.url}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: bearer('65f0000000000000000000c3')
    },
    body: JSON.stringify(batch[0])
  })
  t.equal(next.status, 429, 'the budget is spent for the next POST too')
})
