import t from 'tap'
import { ApiClientStore } from '@svc/core/kit'
import { buildApp, fails, makeUser, ok, restCreate } from './helper.js'

const { app } = await buildApp(t)
const alice = makeUser()
const bob = makeUser()
const admin = makeUser({ user_id: alice.userId, roles: ['user', 'admin'] })
for (const [title, amount, stage, closeDate] of [
  ['a', 100, 'open', '2026-01-10'],
  ['b', 50, 'won', '2026-03-01'],
  ['c', 10, 'open', '2026-02-01']
] as const) {
  await restCreate(app, alice, 'deals', { title, amount, stage, closeDate })
}
await restCreate(app, bob, 'deals', { title: 'z', amount: 999, stage: 'open' })

t.test("one query per aggregation with typed params, the caller's tenant only", async (t) => {
  const all = await ok(app, alice.headers, '{ dealsByStage }')
  t.same(all.dealsByStage, [
    { _id: 'open', count: 2, total: 110 },
    { _id: 'won', count: 1, total: 50 }
  ])
  const filtered = await ok(app, alice.headers, '{ dealsByStage(minAmount: 20, closingAfter: "2026-01-01T00:00:00Z") }')
  t.same(filtered.dealsByStage, [
    { _id: 'open', count: 1, total: 100 },
    { _id: 'won', count: 1, total: 50 }
  ])
  const typed = await fails(app, alice.headers, '{ dealsByStage(minAmount: "lots") }')
  t.equal(typed.code, 'VALIDATION', 'params are typed in the schema')
  const date = await fails(app, alice.headers, '{ dealsByStage(closingAfter: "soon") }')
  t.equal(date.code, 'VALIDATION')
})

t.test('unsafe aggregations are for acl.list roles; api clients get none', async (t) => {
  const denied = await fails(app, alice.headers, '{ dealsTotal }')
  t.equal(denied.code, 'FORBIDDEN')
  const total = await ok(app, admin.headers, '{ dealsTotal }')
  t.same(total.dealsTotal, [{ _id: null, total: 160 }], 'tenant scope still applies to unsafe ones')
  const client = await new ApiClientStore(app.svc.db).create({ role: 'public' })
  t.equal((await fails(app, { 'x-client-id': client._id }, '{ dealsByStage }')).code, 'FORBIDDEN')
})

t.test('historyByDoc: audit rows newest first, for a caller who can read the record', async (t) => {
  const c = await restCreate(app, alice, 'contacts', { firstName: 'Ada', lastName: 'L' })
  await ok(
    app,
    alice.headers,
    `mutation { contactsUpdateById(_id: "${c._id as string}", record: { score: 3 }) { recordId } }`
  )
  const page = await ok(
    app,
    alice.headers,
    `{ historyByDoc(path: contacts, _id: "${c._id as string}") { totalResults results { action recordId diff at } } }`
  )
  t.equal(page.historyByDoc.totalResults, 2)
  t.same(
    page.historyByDoc.results.map((r: any) => r.action),
    ['update', 'create']
  )
  t.same(page.historyByDoc.results[0].diff, { score: { from: 0, to: 3 } })
  const paged = await ok(
    app,
    alice.headers,
    `{ historyByDoc(path: contacts, _id: "${c._id as string}", perPage: 1, page: 2) { page nextPage prevPage results { action } } }`
  )
  t.same(paged.historyByDoc, { page: 2, nextPage: null, prevPage: 1, results: [{ action: 'create' }] })
  const foreign = await fails(
    app,
    bob.headers,
    `{ historyByDoc(path: contacts, _id: "${c._id as string}") { totalResults } }`
  )
  t.equal(foreign.code, 'NOT_FOUND')
  const notAudited = await fails(
    app,
    alice.headers,
    `{ historyByDoc(path: logs, _id: "${c._id as string}") { totalResults } }`
  )
  t.equal(notAudited.code, 'VALIDATION', 'schemas without audit are not in the AuditedPath enum')
})

t.test('_describe lists the operations generated per schema', async (t) => {
  const schemas = (await app.inject({ method: 'GET', url: '/_describe' })).json().schemas
  const deals = schemas.find((s: any) => s.path === 'deals').endpoints.graphql
  t.same(deals.queries.sort(), ['dealsById', 'dealsByStage', 'dealsMany', 'dealsPage', 'dealsTotal', 'historyByDoc'])
  t.same(deals.mutations.sort(), [
    'dealsCreateMany',
    'dealsCreateOne',
    'dealsRemoveById',
    'dealsRemoveMany',
    'dealsRestore',
    'dealsTransitionApproval',
    'dealsUpdateById',
    'dealsUpdateMany',
    'dealsUpdateOne'
  ])
  const logs = schemas.find((s: any) => s.path === 'logs').endpoints.graphql
  t.same(logs.queries.sort(), ['logsById', 'logsMany', 'logsPage'], 'no audit, no search: no history, no search query')
  t.notOk(logs.mutations.includes('logsRestore'), 'no soft delete, no restore')
})

t.test('an aggregation whose query name is taken stops start-up', async (t) => {
  const schemas = [
    {
      path: 'x',
      fields: [{ name: 'n', type: Number }],
      aggregations: [{ name: 'many', pipeline: [{ $group: { _id: null } }] }]
    }
  ]
  await t.rejects(buildApp(t, { schemas }), /xMany/)
})
