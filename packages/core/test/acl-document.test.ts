import t from 'tap'
import type { RecordEvent } from '../src/index.js'
import { buildCoreApp, makeUser } from './helper.js'

const schemas = [
  {
    path: 'tickets',
    fields: [{ name: 'title', type: String, required: true }],
    acl: { list: ['support'], delete: ['support'] }
  }
]

t.test('acl.list and acl.delete bypass the tenant on list and delete only', async (t) => {
  const app = await buildCoreApp(t, { schemas })
  const alice = makeUser()
  const agent = makeUser({ roles: ['user', 'support'] })
  const mallory = makeUser()
  const id = (
    await app.inject({ method: 'POST', url: '/api/v1/tickets', headers: alice.headers, payload: { title: 'help' } })
  ).json()._id
  await app.inject({ method: 'POST', url: '/api/v1/tickets', headers: agent.headers, payload: { title: 'own' } })
  {
    const res = await app.inject({ method: 'GET', url: '/api/v1/tickets', headers: agent.headers })
    t.equal(res.json().totalResults, 2, 'support lists every tenant')
    const res2 = await app.inject({ method: 'GET', url: '/api/v1/tickets', headers: mallory.headers })
    t.equal(res2.json().totalResults, 0, 'a plain user still sees only their own')
  }
  {
    const res = await app.inject({ method: 'GET', url: `/api/v1/tickets/${id}`, headers: agent.headers })
    t.equal(res.statusCode, 404, 'get by id stays owner-scoped (the spec names list and delete only)')
    const res2 = await app.inject({
      method: 'PUT',
      url: `/api/v1/tickets/${id}`,
      headers: agent.headers,
      payload: { title: 'hacked' }
    })
    t.equal(res2.statusCode, 404, 'update stays owner-scoped')
    const res3 = await app.inject({
      method: 'PUT',
      url: '/api/v1/tickets',
      headers: agent.headers,
      payload: { filter: { title: 'help' }, record: { title: 'bulk' } }
    })
    t.equal(res3.statusCode, 200)
    const stored = await app.svc.db.collection('tickets').findOne({ userId: alice.userId })
    t.equal(stored?.title, 'help', "bulk stays owner-scoped: alice's record untouched")
    const res4 = await app.inject({ method: 'DELETE', url: `/api/v1/tickets/${id}`, headers: mallory.headers })
    t.equal(res4.statusCode, 404, 'delete without the role is owner-scoped')
  }
  {
    const seen: RecordEvent[] = []
    app.svc.events.on('tickets.deleted', (e: RecordEvent) => {
      seen.push(e)
    })
    const res = await app.inject({ method: 'DELETE', url: `/api/v1/tickets/${id}`, headers: agent.headers })
    t.equal(res.statusCode, 200, 'support deletes another tenant’s record')
    t.equal(seen[0]?.userId, alice.userId, "the event belongs to the record's tenant, not the actor's")
  }
})

t.test('a token with account_id keeps the bypass inside its organisation', async (t) => {
  const app = await buildCoreApp(t, { schemas })
  const a1 = makeUser({ account_id: 'org-1' })
  const b1 = makeUser({ account_id: 'org-2' })
  const orgAdmin = makeUser({ account_id: 'org-1', roles: ['support'] })
  await app.inject({ method: 'POST', url: '/api/v1/tickets', headers: a1.headers, payload: { title: 'org1' } })
  const other = (
    await app.inject({ method: 'POST', url: '/api/v1/tickets', headers: b1.headers, payload: { title: 'org2' } })
  ).json()._id
  const res = await app.inject({ method: 'GET', url: '/api/v1/tickets', headers: orgAdmin.headers })
  t.same(
    res.json().results.map((r: { title: string }) => r.title),
    ['org1'],
    'only its own organisation'
  )
  const del = await app.inject({ method: 'DELETE', url: `/api/v1/tickets/${other}`, headers: orgAdmin.headers })
  t.equal(del.statusCode, 404, 'cannot delete in another organisation')
})
