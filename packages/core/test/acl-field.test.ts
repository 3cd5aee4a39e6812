import t from 'tap'
import { ApiClientStore } from '../src/kit.js'
import { buildCoreApp, makeUser } from './helper.js'

const schemas = [
  {
    path: 'people',
    fields: [
      { name: 'name', type: String, required: true },
      { name: 'salary', type: Number, acl: { read: ['hr'], create: ['hr'], update: ['hr'] } },
      { name: 'rating', type: Number, acl: { update: ['manager'] } },
      {
        name: 'badge',
        type: String,
        computed: (r: Record<string, unknown>) => `${String(r.name)}:${String(r.salary ?? '-')}`,
        acl: { read: ['hr'] }
      },
      { name: 'published', type: Boolean, default: true }
    ],
    acl: { scope: { public: { published: true } } }
  }
]

t.test('field ACL on reads, writes, filters and sorts', async (t) => {
  const app = await buildCoreApp(t, { schemas })
  const hr = makeUser({ roles: ['user', 'hr'] })
  const staff = makeUser({ user_id: hr.userId, roles: ['user'] }) // same tenant, fewer roles
  let id = ''
  {
    const res = await app.inject({
      method: 'POST',
      url: '/api/v1/people',
      headers: staff.headers,
      payload: { name: 'a', salary: 10 }
    })
    t.equal(res.statusCode, 403, 'POST naming a field without the create role')
    t.match(res.json(), { error: { code: 'FORBIDDEN', details: { field: 'salary' } } })
  }
  {
    const res = await app.inject({
      method: 'POST',
      url: '/api/v1/people',
      headers: hr.headers,
      payload: { name: 'ann', salary: 10, rating: 3 }
    })
    t.equal(res.statusCode, 201, 'hr creates with salary; rating has no create slot (open)')
    t.match(res.json(), { salary: 10, rating: 3, badge: 'ann:10' }, 'hr sees salary and the hr-only computed field')
    id = res.json()._id
  }
  {
    const res = await app.inject({ method: 'GET', url: `/api/v1/people/${id}`, headers: staff.headers })
    t.equal(res.statusCode, 200)
    t.notOk('salary' in res.json(), 'salary stripped on get')
    t.notOk('badge' in res.json(), 'a computed field with a read slot is stripped too')
    t.equal(res.json().rating, 3, 'open fields stay')
    const list = await app.inject({ method: 'GET', url: '/api/v1/people', headers: staff.headers })
    t.notOk('salary' in list.json().results[0], 'salary stripped on list')
  }
  for (const url of [
    '/api/v1/people?salary=10',
    '/api/v1/people?salary={"$gt":5}',
    '/api/v1/people?__sort=salary:desc',
    '/api/v1/people?nosuch=1'
  ]) {
    const res = await app.inject({ method: 'GET', url, headers: staff.headers })
    t.equal(res.statusCode, 400, `GET ${url} by a caller who cannot read it`)
    t.match(
      res.json(),
      { error: { code: 'VALIDATION', message: /^unknown field '(salary|nosuch)'$/ } },
      'same answer as an unknown field: no oracle'
    )
  }
  {
    const res = await app.inject({
      method: 'GET',
      url: '/api/v1/people?salary={"$gt":5}&__sort=salary:desc',
      headers: hr.headers
    })
    t.equal(res.json().totalResults, 1, 'hr may filter and sort on salary')
  }
  {
    const res = await app.inject({
      method: 'PUT',
      url: `/api/v1/people/${id}`,
      headers: staff.headers,
      payload: { salary: 99 }
    })
    t.equal(res.statusCode, 403, 'PUT by id naming a non-writable field')
    t.match(res.json(), { error: { code: 'FORBIDDEN', details: { field: 'salary' } } })
    const res2 = await app.inject({
      method: 'PUT',
      url: `/api/v1/people/${id}`,
      headers: hr.headers,
      payload: { rating: 4 }
    })
    t.equal(res2.statusCode, 403, 'the update slot applies to hr too')
    t.match(res2.json(), { error: { details: { field: 'rating' } } })
    const res3 = await app.inject({
      method: 'PUT',
      url: `/api/v1/people/${id}`,
      headers: staff.headers,
      payload: { salary: null }
    })
    t.equal(res3.statusCode, 403, 'clearing a field is writing it')
  }
  {
    const res = await app.inject({
      method: 'PUT',
      url: '/api/v1/people',
      headers: staff.headers,
      payload: { filter: {}, record: { salary: 1 } }
    })
    t.equal(res.statusCode, 403, 'bulk PUT record naming a non-writable field')
    t.match(res.json(), { error: { details: { field: 'salary' } } })
    const res2 = await app.inject({
      method: 'PUT',
      url: '/api/v1/people',
      headers: staff.headers,
      payload: { filter: { salary: 10 }, record: { name: 'x' } }
    })
    t.equal(res2.statusCode, 400, 'bulk filter on a hidden field')
    t.match(res2.json(), { error: { message: "unknown field 'salary'" } })
  }
  {
    const doc = await app.svc.db.collection('people').findOne({})
    t.equal(doc?.salary, 10, 'nothing written by refused requests')
    t.notOk('badge' in (doc ?? {}), 'computed values are not stored')
  }
  {
    const svc = app.svc.services.get('people')
    const rec = await svc.get({ identity: null, system: true, surface: 'system' }, id)
    t.equal(rec.salary, 10, 'system calls bypass field ACL')
    t.equal(svc.readableFields({ identity: null, system: true, surface: 'system' }), null)
    const readable = svc.readableFields({
      identity: { kind: 'user', userId: staff.userId, roles: ['user'] },
      surface: 'rest'
    })
    t.ok(
      readable?.has('name') && readable.has('_id') && !readable.has('salary') && !readable.has('badge'),
      'readableFields for a plain user'
    )
  }
})

t.test("anonymous clients' roles count for field ACL", async (t) => {
  const app = await buildCoreApp(t, {
    schemas: [
      { ...schemas[0], fields: [...schemas[0].fields, { name: 'blurb', type: String, acl: { read: ['public'] } }] }
    ]
  })
  const hr = makeUser({ roles: ['hr'] })
  await app.inject({
    method: 'POST',
    url: '/api/v1/people',
    headers: hr.headers,
    payload: { name: 'ann', salary: 1, blurb: 'hi' }
  })
  const client = await new ApiClientStore(app.svc.db).create({ role: 'public' })
  const res = await app.inject({ method: 'GET', url: '/api/v1/people', headers: { 'x-client-id': client._id } })
  t.equal(res.statusCode, 200)
  t.match(res.json().results[0], { name: 'ann', blurb: 'hi' }, 'the client role reads its field')
  t.notOk('salary' in res.json().results[0], 'and not the hr field')
  const owner = await app.inject({ method: 'GET', url: '/api/v1/people', headers: hr.headers })
  t.notOk('blurb' in owner.json().results[0], "the owner without the 'public' role does not see it")
  const q = await app.inject({ method: 'GET', url: '/api/v1/people?salary=1', headers: { 'x-client-id': client._id } })
  t.equal(q.statusCode, 400, 'a client cannot filter on a field hidden from it')
})

t.test('a defaulted field with a create slot: omitted it takes its default, sent it is screened', async (t) => {
  const app = await buildCoreApp(t, {
    schemas: [
      {
        path: 'skills',
        fields: [
          { name: 'name', type: String, required: true },
          {
            name: 'status',
            type: String,
            enum: ['draft', 'approved'],
            default: 'draft',
            acl: { create: ['admin'], update: ['admin'] }
          }
        ]
      }
    ]
  })
  const user = makeUser({ roles: ['user'] })
  const created = await app.inject({
    method: 'POST',
    url: '/api/v1/skills',
    headers: user.headers,
    payload: { name: 'triage' }
  })
  t.equal(created.statusCode, 201, 'the default is not a write by the caller')
  t.equal(created.json().status, 'draft', 'and it is applied')
  const sent = await app.inject({
    method: 'POST',
    url: '/api/v1/skills',
    headers: user.headers,
    payload: { name: 'x', status: 'approved' }
  })
  t.match(sent.json(), { error: { code: 'FORBIDDEN', details: { field: 'status' } } }, 'sending it is still refused')
  const bulk = await app.inject({
    method: 'PUT',
    url: '/api/v1/skills',
    headers: user.headers,
    payload: { filter: { name: 'new' }, record: { name: 'new' } }
  })
  t.equal(bulk.statusCode, 200, 'a bulk upsert without the field passes too')
  const admin = makeUser({ user_id: user.userId, roles: ['user', 'admin'] })
  t.equal(
    (
      await app.inject({
        method: 'POST',
        url: '/api/v1/skills',
        headers: admin.headers,
        payload: { name: 'y', status: 'approved' }
      })
    ).json().status,
    'approved',
    'the create role sets it'
  )
})
