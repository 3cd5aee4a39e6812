import t from 'tap'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { getTestDb, signToken } from '@svc/testkit'
import { buildServer } from '../src/build-server.js'
import { loadConfig } from '../src/config.js'
import { workspace } from './fixtures/workspace.js'

t.test('GET /_describe on the reference server: soft delete and audit loaded, per-schema opt-outs', async (t) => {
  const ws = workspace()
  // A second schema that opts out of both: its flags and routes must say so.
  writeFileSync(
    join(ws.schemaDir, 'versions', 'v1', 'drafts.mjs'),
    `export default {
  path: 'drafts',
  fields: [{ name: 'body', type: String, searchable: true }],
  softDelete: false,
  audit: false
}\n`
  )
  const { config } = loadConfig({
    NODE_ENV: 'test',
    JWT_SECRET: 'server-test-secret',
    SCHEMA_DIR: ws.schemaDir,
    ACCESS_TOKEN_TTL: '30m'
  })
  if (config == null) throw new Error('test config invalid')
  const { db } = await getTestDb(t)
  const app = await buildServer(config, { db, logger: false })
  t.teardown(async () => await app.close())

  const res = await app.inject({ method: 'GET', url: '/_describe' })
  t.equal(res.statusCode, 200, 'GET /_describe without credentials')
  const m = res.json()
  t.equal(m.version, 'v1')
  t.same(
    m.features,
    {
      softDelete: true,
      audit: true,
      search: true,
      files: false,
      relations: false,
      aggregations: false,
      idempotency: true,
      stateMachines: false,
      webhooks: true,
      realtime: true
    },
    'features with the reference plugins loaded'
  )
  t.same(
    m.auth,
    {
      endpoints: {
        register: '/register',
        login: '/login',
        refresh: '/auth/refresh',
        forgotPassword: '/auth/forgot-password',
        resetPassword: '/auth/reset-password'
      },
      tokenType: 'Bearer',
      tokenTtl: 1800
    },
    'auth: ACCESS_TOKEN_TTL in seconds'
  )

  const notes = m.schemas.find((s: any) => s.path === 'notes')
  t.equal(notes.softDelete, true, 'notes: soft delete effective')
  t.equal(notes.audit, true, 'notes: audit effective')
  t.same(
    notes.fields.filter((f: any) => f.stamped).map((f: any) => f.name),
    ['_id', 'userId', 'accountId', 'createdAt', 'updatedAt', 'deletedAt'],
    'deletedAt listed once soft delete is effective'
  )
  t.same(notes.acl, { list: [], delete: [], scopeRoles: ['public'] }, 'scope roles only, never the filter')
  t.same(
    notes.endpoints.rest,
    [
      { method: 'POST', path: '/api/v1/notes', idempotent: true },
      { method: 'GET', path: '/api/v1/notes' },
      { method: 'PUT', path: '/api/v1/notes' },
      { method: 'GET', path: '/api/v1/notes-schema' },
      { method: 'GET', path: '/api/v1/notes/:id' },
      { method: 'PUT', path: '/api/v1/notes/:id' },
      { method: 'DELETE', path: '/api/v1/notes/:id' },
      { method: 'POST', path: '/api/v1/notes/:id/restore' },
      { method: 'GET', path: '/api/v1/notes/:id/history' }
    ],
    'notes: restore and history listed'
  )

  const drafts = m.schemas.find((s: any) => s.path === 'drafts')
  t.equal(drafts.softDelete, false, 'drafts opted out of soft delete')
  t.equal(drafts.audit, false, 'drafts opted out of audit')
  t.notOk(
    drafts.fields.some((f: any) => f.name === 'deletedAt'),
    'no deletedAt on a hard-delete schema'
  )
  t.notOk(
    drafts.endpoints.rest.some((e: any) => /restore|history/.test(e.path as string)),
    'no restore/history routes for drafts'
  )

  // Every advertised route exists: none answers 404 for an unknown route.
  const headers = {
    authorization: `Bearer ${signToken({ user_id: '65f000000000000000000001', email: 'a@example.test', roles: ['user'] }, 'server-test-secret')}`
  }
  for (const s of m.schemas) {
    for (const e of s.endpoints.rest) {
      const url = (e.path as string).replace(':id', '65f0000000000000000000ff')
      const r = await app.inject({
        method: e.method,
        url,
        headers,
        ...(e.method === 'GET' || e.method === 'DELETE' ? {} : { payload: {} })
      })
      t.notMatch(
        r.json().error?.message ?? '',
        /^route .* not found$/,
        `${e.method as string} ${e.path as string} is routed`
      )
    }
    const own = await app.inject({ method: 'GET', url: `/api/v1/${s.path as string}-schema`, headers })
    t.same(own.json(), s, `${s.path as string}-schema is the same description`)
  }
})
