import t from 'tap'
import { getTestDb, signToken } from '@svc/testkit'
import { buildServer } from '../src/build-server.js'
import { loadConfig } from '../src/config.js'
import { workspace } from './fixtures/workspace.js'

t.test('the reference server loads @svc/softdelete and @svc/audit: tombstones, restore, history', async (t) => {
  const { config } = loadConfig({
    NODE_ENV: 'test',
    JWT_SECRET: 'server-test-secret',
    SCHEMA_DIR: workspace().schemaDir,
    SOFT_DELETE_RETENTION_DAYS: '30'
  })
  if (config == null) throw new Error('test config invalid')
  const { db } = await getTestDb(t)
  const app = await buildServer(config, { db, logger: false })
  t.teardown(async () => await app.close())
  const headers = {
    authorization: `Bearer ${signToken({ user_id: '65f000000000000000000001', email: 'a@example.test', roles: ['user'] }, 'server-test-secret')}`
  }
  t.same(app.svc.features, { ...app.svc.features, softDelete: true, audit: true }, 'features reflect both plugins')
  t.equal(app.svc.softDelete?.retentionDays('notes'), 30, 'SOFT_DELETE_RETENTION_DAYS reaches the sweep')
  const id = (await app.inject({ method: 'POST', url: '/api/v1/notes', headers, payload: { title: 'a' } })).json()._id
  t.equal((await app.inject({ method: 'DELETE', url: `/api/v1/notes/${id}`, headers })).statusCode, 200)
  t.equal(await db.collection('notes').countDocuments(), 1, 'soft deleted, not removed')
  t.equal(
    (await app.inject({ method: 'POST', url: `/api/v1/notes/${id}/restore`, headers })).statusCode,
    200,
    'restore route'
  )
  const res = await app.inject({ method: 'GET', url: `/api/v1/notes/${id}/history`, headers })
  t.equal(res.statusCode, 200, 'history route')
  t.same(
    res.json().results.map((r: { action: string }) => r.action),
    ['restore', 'delete', 'create']
  )
})

t.test(
  'fractional SOFT_DELETE_RETENTION_DAYS and SOFT_DELETE_SWEEP_SECONDS: the sweep runs on its own and purges',
  async (t) => {
    // 0.000002 days ≈ 0.17 s; a sweep every 0.1 s.
    const { config } = loadConfig({
      NODE_ENV: 'test',
      JWT_SECRET: 'server-test-secret',
      SCHEMA_DIR: workspace().schemaDir,
      SOFT_DELETE_RETENTION_DAYS: '0.000002',
      SOFT_DELETE_SWEEP_SECONDS: '0.1'
    })
    if (config == null) throw new Error('test config invalid')
    const { db } = await getTestDb(t)
    const app = await buildServer(config, { db, logger: false })
    t.teardown(async () => await app.close())
    t.equal(app.svc.softDelete?.retentionDays('notes'), 0.000002, 'fractional retention accepted')
    const headers = {
      authorization: `Bearer ${signToken({ user_id: '65f000000000000000000002', email: 'b@example.test', roles: ['user'] }, 'server-test-secret')}`
    }
    const id = (
      await app.inject({ method: 'POST', url: '/api/v1/notes', headers, payload: { title: 'short-lived' } })
    ).json()._id
    t.equal((await app.inject({ method: 'DELETE', url: `/api/v1/notes/${id}`, headers })).statusCode, 200)
    const deadline = Date.now() + 20_000
    while ((await db.collection('notes').countDocuments()) > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    t.equal(
      await db.collection('notes').countDocuments(),
      0,
      'the tombstone was purged by the timer, without a call to sweep()'
    )
  }
)
