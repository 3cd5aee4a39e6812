import t from 'tap'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { getTestDb, signToken } from '@svc/testkit'
import { buildServer } from '../src/build-server.js'
import { loadConfig } from '../src/config.js'

const SECRET = 'schema-versions-secret-0123456789abcdef'
// v1 gains `region` as an optional field with a default (a safe change for its clients), v2
// requires it: records created through v1 then fit v2 too.
const V1 = `export default {
  path: 'deals',
  fields: [
    { name: 'title', type: String, required: true, searchable: true },
    { name: 'amount', type: Number },
    { name: 'region', type: String, enum: ['emea', 'americas'], default: 'emea' },
    { name: 'cost', type: Number, acl: { read: ['admin'] } }
  ]
}
`
const V2 = `export default {
  path: 'deals',
  fields: [
    { name: 'title', type: String, required: true, searchable: true },
    { name: 'amount', type: Number, min: 1 },
    { name: 'region', type: String, required: true, enum: ['emea', 'americas'] },
    { name: 'summary', type: String, searchable: true },
    { name: 'cost', type: Number, acl: { read: ['admin'] } }
  ]
}
`

t.test('version v2 beside v1: both routes live on the same records, each validating by its own file', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-versions-'))
  t.teardown(() => {
    rmSync(dir, { recursive: true, force: true })
  })
  for (const [v, text] of [
    ['v1', V1],
    ['v2', V2]
  ]) {
    mkdirSync(join(dir, 'versions', v), { recursive: true })
    writeFileSync(join(dir, 'versions', v, 'deals.mjs'), text)
  }
  const { config } = loadConfig({ NODE_ENV: 'test', JWT_SECRET: SECRET, SCHEMA_DIR: dir, SCHEMA_CHECK: 'refuse' })
  const { db } = await getTestDb(t)
  const app = await buildServer(config!, { db, logger: false })
  t.teardown(async () => await app.close())
  await app.ready()
  const headers = {
    authorization: `Bearer ${signToken({ user_id: 'ana', email: 'ana@example.test', roles: ['user'] }, SECRET)}`
  }
  const other = {
    authorization: `Bearer ${signToken({ user_id: 'bo', email: 'bo@example.test', roles: ['user'] }, SECRET)}`
  }

  const v1 = await app.inject({
    method: 'POST',
    url: '/api/v1/deals',
    headers,
    payload: { title: 'old client', amount: 0 }
  })
  t.equal(v1.statusCode, 201, 'v1 creates without region (its default fills it) and with amount 0')
  t.equal(v1.json().region, 'emea')
  t.equal(
    (await app.inject({ method: 'POST', url: '/api/v2/deals', headers, payload: { title: 'new client', amount: 5 } }))
      .statusCode,
    400,
    'v2 requires region'
  )
  t.equal(
    (
      await app.inject({
        method: 'POST',
        url: '/api/v2/deals',
        headers,
        payload: { title: 'new', amount: 0, region: 'emea' }
      })
    ).statusCode,
    400,
    'v2 refuses amount 0'
  )
  const v2 = await app.inject({
    method: 'POST',
    url: '/api/v2/deals',
    headers,
    payload: { title: 'new client', amount: 5, region: 'americas', summary: 'renewal' }
  })
  t.equal(v2.statusCode, 201)
  const id1 = v1.json()._id as string
  const id2 = v2.json()._id as string
  t.equal(
    (await app.inject({ method: 'GET', url: `/api/v2/deals/${id1}`, headers })).json().title,
    'old client',
    'v2 reads what v1 wrote'
  )
  t.match(
    (await app.inject({ method: 'GET', url: `/api/v1/deals/${id2}`, headers })).json(),
    { title: 'new client', region: 'americas' },
    'v1 reads what v2 wrote'
  )
  t.equal(
    (await app.inject({ method: 'GET', url: `/api/v1/deals/${id2}`, headers: other })).statusCode,
    404,
    'tenancy holds on both'
  )
  t.equal((await app.inject({ method: 'GET', url: '/api/v2/deals', headers: other })).json().totalResults, 0)
  {
    const res = await app.inject({ method: 'PUT', url: `/api/v1/deals/${id2}`, headers, payload: { amount: 7 } })
    t.equal(res.statusCode, 200, 'v1 updates a v2 record')
    const history = (await app.inject({ method: 'GET', url: `/api/v2/deals/${id2}/history`, headers })).json()
    t.same(
      history.results.map((h: { action: string }) => h.action),
      ['update', 'create'],
      'one history whichever version wrote'
    )
  }
  for (const v of ['v1', 'v2']) {
    const found = (await app.inject({ method: 'GET', url: `/api/${v}/deals?q=renewal`, headers })).json()
    t.same(
      found.results.map((r: { _id: string }) => r._id),
      [id2],
      `${v}: the one text index covers both versions' searchable fields`
    )
  }
  {
    const gql = await app.inject({
      method: 'POST',
      url: '/graphql',
      headers,
      payload: { query: '{ dealsMany { _id } v2_dealsMany { _id region } }' }
    })
    t.equal(gql.json().data.dealsMany.length, 2)
    t.same(
      gql
        .json()
        .data.v2_dealsMany.map((d: { region: string }) => d.region)
        .sort(),
      ['americas', 'emea'],
      'GraphQL: v2_<path> operations'
    )
  }
  const described = (await app.inject({ method: 'GET', url: '/_describe' })).json()
  t.same(
    described.schemas
      .map((s: { version?: string; path: string }) => `${s.version ?? described.version}/${s.path}`)
      .sort(),
    ['v1/deals', 'v2/deals']
  )
  const plan = await app.svc.evolution.plan({ exact: true })
  t.same(plan.blocking, [], 'both versions fit the stored records')
  t.notOk(
    plan.changes.some((c) => c.kind === 'acl-gap'),
    'cost is restricted the same way in both'
  )
})
