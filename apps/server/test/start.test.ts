import t from 'tap'
import { getTestDb } from '@svc/testkit'
import { loadConfig, type ServerConfig } from '../src/config.js'
import { dbNameFromUri } from '../src/database.js'
import { startServer } from '../src/start.js'
import { workspace } from './fixtures/workspace.js'

/** The test settings of `svc start`, on the given database (`MONGODB_URI`, or `DATA_DIR` for the embedded one). */
function startConfig (database: { MONGODB_URI: string } | { DATA_DIR: string }): ServerConfig {
  const { config } = loadConfig({
    NODE_ENV: 'test',
    PORT: '0',
    JWT_SECRET: 'start-test-secret',
    ...database,
    SCHEMA_DIR: workspace().schemaDir
  })
  if (config == null) throw new Error('config')
  return config
}

async function register (url: string, email: string): Promise<Response> {
  return await fetch(`${url}/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ first_name: 'S', last_name: 'T', email, password: 'long-enough-password' })
  })
}

t.test('dbNameFromUri', async (t) => {
  t.equal(dbNameFromUri('mongodb://localhost:27017/app'), 'app')
  t.equal(dbNameFromUri('mongodb://u:p@h1:1,h2:2/app?replicaSet=rs'), 'app')
  t.equal(dbNameFromUri('mongodb+srv://cluster.example.net/my%20db?retryWrites=true'), 'my db')
  t.equal(dbNameFromUri('mongodb://localhost:27017'), null)
  t.equal(dbNameFromUri('mongodb://localhost:27017/?x=1'), null)
})

t.test('startServer on MONGODB_URI: listens, serves, uses the URI database, closes', async (t) => {
  const { uri, db } = await getTestDb(t)
  const config = startConfig({ MONGODB_URI: uri })
  const server = await startServer(config, { logger: false })
  t.teardown(async () => await server.close())
  t.equal(server.database.kind, 'mongodb')
  t.equal(server.database.db.databaseName, db.databaseName, 'database name taken from the URI path')
  t.match(server.url, /^http:\/\/127\.0\.0\.1:\d+$/)
  const health = await fetch(`${server.url}/healthz`)
  t.equal(health.status, 200, 'GET /healthz over the network')
  const reg = await register(server.url, 'start@example.test')
  t.equal(reg.status, 201, 'POST /register')
  t.equal(
    await db.collection('users').countDocuments({ email: 'start@example.test' }),
    1,
    'written to the URI database'
  )
  await server.close()
  await server.close() // idempotent
  await t.rejects(fetch(`${server.url}/healthz`), 'no longer accepting connections')
})

t.test('startServer without MONGODB_URI: the embedded database in DATA_DIR, stopped on close', async (t) => {
  const dataDir = t.testdir()
  const config = startConfig({ DATA_DIR: dataDir })
  const server = await startServer(config, { logger: false })
  t.teardown(async () => await server.close())
  t.equal(server.database.kind, 'embedded')
  t.match(server.database.where, /^embedded database in \//)
  const reg = await register(server.url, 'embedded@example.test')
  t.equal(reg.status, 201, 'POST /register on the embedded database')
  t.equal(await server.database.db.collection('users').countDocuments({ email: 'embedded@example.test' }), 1)
  await server.close()
  await t.rejects(
    server.database.db.collection('users').countDocuments(),
    'the embedded database is stopped with the server'
  )
})

t.test('startServer on a port in use: refuses with EADDRINUSE, nothing left open', async (t) => {
  const { uri } = await getTestDb(t)
  const config = startConfig({ MONGODB_URI: uri })
  const first = await startServer(config, { logger: false })
  t.teardown(async () => await first.close())
  const port = Number(new URL(first.url).port)
  await t.rejects(startServer({ ...config, port }, { logger: false }), { code: 'EADDRINUSE' })
  t.equal((await fetch(`${first.url}/healthz`)).status, 200, 'the server holding the port is unaffected')
})
