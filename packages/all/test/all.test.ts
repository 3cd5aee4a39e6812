import t from 'tap'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Fastify, { type FastifyInstance } from 'fastify'
import { getTestDb, registerUser, type Teardownable } from '@svc/testkit'
import svcAll, { SVC_PLUGINS, type SvcAllOptions } from '../src/index.js'

const JWT_SECRET = 'svc-all-test-secret-0123456789abcdef'
const NOTES = {
  path: 'notes',
  collection: 'notes',
  fields: [
    { name: 'body', type: String, required: true },
    { name: 'photo', type: 'File' }
  ]
}
const ALL_OFF = Object.fromEntries(
  SVC_PLUGINS.filter((k) => k !== 'core').map((k) => [k, false])
) as Partial<SvcAllOptions>

/** The set on a fresh database, with every route Fastify registers (HEAD aside) recorded. */
async function build (
  t: Teardownable,
  opts: Partial<SvcAllOptions> = {}
): Promise<{ app: FastifyInstance; routes: Set<string> }> {
  const { db } = await getTestDb(t)
  const uploadsDir = mkdtempSync(join(tmpdir(), 'svc-all-'))
  const app = Fastify({ logger: false })
  const routes = new Set<string>()
  app.addHook('onRoute', (r) => {
    for (const m of [r.method].flat()) if (m !== 'HEAD') routes.add(`${m} ${r.url}`)
  })
  await app.register(svcAll, {
    core: { db, jwtSecret: JWT_SECRET, bcryptRounds: 4, publicBaseUrl: 'http://127.0.0.1:3000', schemas: [NOTES] },
    surface: { metrics: {}, rateLimit: false },
    files: { uploadsDir },
    webhooks: { worker: false },
    ...opts
  })
  t.teardown(async () => {
    await app.close()
    rmSync(uploadsDir, { recursive: true, force: true })
  })
  await app.ready()
  return { app, routes }
}

/** The README's table: plugin → the routes it names, with `<path>` and `<field>` of NOTES. */
function readmeTable (): Map<string, string[]> {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8')
  const section = readme.slice(readme.indexOf('## Which plugin gives which route'))
  const table = new Map<string, string[]>()
  for (const row of section.split('\n').filter((l) => /^\| `@svc\//.test(l))) {
    const [, plugin, routes] = row.split('|').map((c) => c.trim())
    // Only the complete routes: `GET /api/v1/<path>/aggregations/<name>` needs a declared aggregation.
    const named = [...routes.matchAll(/`((?:GET|POST|PUT|PATCH|DELETE) \/[^`]*)`/g)]
      .map((m) => m[1])
      .filter((r) => !r.includes('<name>'))
    table.set(
      plugin.replace(/`/g, ''),
      named.map((r) => r.replaceAll('<path>', 'notes').replaceAll('<field>', 'photo'))
    )
  }
  return table
}

// Pages' own files (hashed console assets, GraphiQL's scripts, Swagger UI's static files) and the
// generic forms Fastify registers next to the named ones are not routes a reader looks up.
const ASSET =
  /^GET \/(console\/assets\/|graphiql\/|api-docs\/static\/)|^(GET|POST|DELETE) \/api\/v1\/notes\/:id\/:field$/

t.test('one register call serves every plugin, and the README table says which route is whose', async (t) => {
  const table = readmeTable()
  t.same([...table.keys()].sort(), SVC_PLUGINS.map((k) => `@svc/${k}`).sort(), 'one row per plugin of the set')
  const full = await build(t)
  const coreOnly = await build(t, ALL_OFF)
  for (const [plugin, routes] of table) {
    for (const route of routes) {
      t.ok(full.routes.has(route), `${plugin}: ${route} is served by the set`)
      if (plugin === '@svc/core') t.ok(coreOnly.routes.has(route), `${route} is core's own`)
      else t.notOk(coreOnly.routes.has(route), `${route} is gone without ${plugin}`)
    }
  }
  const listed = new Set([...table.values()].flat())
  t.same(
    [...full.routes].filter((r) => !listed.has(r) && !ASSET.test(r)).sort(),
    [],
    'every route of the set is in the table'
  )
})

t.test('the plugins share one service: soft delete, restore, history, docs, GraphQL', async (t) => {
  const { app } = await build(t)
  const user = await registerUser(app)
  const created = await app.inject({
    method: 'POST',
    url: '/api/v1/notes',
    headers: user.headers,
    payload: { body: 'hello' }
  })
  t.equal(created.statusCode, 201, 'POST /api/v1/notes')
  const id = created.json()._id as string
  {
    const res = await app.inject({ method: 'DELETE', url: `/api/v1/notes/${id}`, headers: user.headers })
    t.equal(res.statusCode, 200)
    t.type(res.json().deletedAt, 'string', 'DELETE leaves a tombstone (@svc/softdelete)')
  }
  {
    const res = await app.inject({ method: 'POST', url: `/api/v1/notes/${id}/restore`, headers: user.headers })
    t.equal(res.statusCode, 200, 'restore')
    t.match(res.json(), { _id: id, body: 'hello' })
  }
  {
    const res = await app.inject({ method: 'GET', url: `/api/v1/notes/${id}/history`, headers: user.headers })
    t.equal(res.statusCode, 200, 'history (@svc/audit)')
    t.same(
      res.json().results.map((r: { action: string }) => r.action),
      ['restore', 'delete', 'create'],
      'newest first'
    )
  }
  {
    const res = await app.inject({ method: 'GET', url: '/api-docs/openapi.json' })
    t.equal(res.statusCode, 200, 'the OpenAPI document (@svc/surface)')
    t.ok(res.json().paths['/api/v1/notes/{id}/restore'], 'describes the routes of the other plugins')
  }
  {
    const res = await app.inject({
      method: 'POST',
      url: '/graphql',
      headers: user.headers,
      payload: { query: '{ notesMany { body } }' }
    })
    t.same(res.json(), { data: { notesMany: [{ body: 'hello' }] } }, 'GraphQL reads the same records')
  }
  {
    const res = await app.inject({ method: 'GET', url: '/_metrics' })
    t.match(res.body, /http_request_duration_seconds/, 'surface metrics cover the routes registered after it')
  }
})

t.test('a plugin set to false is not registered: without soft delete, DELETE is permanent', async (t) => {
  // Files off too: its `POST /api/v1/notes/:id/:field` would take `restore` for a file field (400).
  const { app } = await build(t, { softdelete: false, files: false })
  const user = await registerUser(app)
  const id = (
    await app.inject({ method: 'POST', url: '/api/v1/notes', headers: user.headers, payload: { body: 'x' } })
  ).json()._id as string
  t.equal((await app.inject({ method: 'DELETE', url: `/api/v1/notes/${id}`, headers: user.headers })).statusCode, 200)
  t.equal(
    (await app.inject({ method: 'POST', url: `/api/v1/notes/${id}/restore`, headers: user.headers })).statusCode,
    404,
    'no restore route'
  )
  t.equal(await app.svc.db.collection('notes').countDocuments(), 0, 'the record is gone')
})

t.test('options.core is required', async (t) => {
  const app = Fastify({ logger: false })
  t.teardown(async () => await app.close())
  await t.rejects(async () => {
    await app.register(svcAll, {} as SvcAllOptions)
    await app.ready()
  }, /@svc\/all: options\.core .* is required/)
})
