import t from 'tap'
import type { RequestContext } from '../src/index.js'
import { buildCoreApp, makeUser } from './helper.js'

// Issue 9: unknown body fields were dropped with 201/200 (a typo lost data silently), and only
// the first validation issue was reported.

function fieldsOf (body: any): string[] {
  return (body.error.details.issues as Array<{ field: string }>).map((i) => i.field).sort()
}

t.test('REST: unknown fields are 400 naming each one, on create, update and bulk; nothing is written', async (t) => {
  const app = await buildCoreApp(t)
  const u = makeUser()
  const created = await app.inject({
    method: 'POST',
    url: '/api/v1/companies',
    headers: u.headers,
    payload: { name: 'Acme', address: { city: 'Paris' } }
  })
  t.equal(created.statusCode, 201)
  const id = created.json()._id
  const cases: Array<[string, string, object, string[]]> = [
    ['POST', '/api/v1/companies', { name: 'B', nmae: 'typo', colour: 'red' }, ['colour', 'nmae']],
    ['POST', '/api/v1/companies', { name: 'B', address: { city: 'X', zip: '1' } }, ['address.zip']],
    [
      'POST',
      '/api/v1/tasks',
      { title: 'T', checklist: [{ text: 'a' }, { text: 'b', dne: true }] },
      ['checklist.1.dne']
    ],
    ['PUT', `/api/v1/companies/${id}`, { employes: 5 }, ['employes']],
    [
      'PUT',
      `/api/v1/companies/${id}`,
      { employees: 5, industri: 'retail', address: { city: 'Y', planet: 'Mars' } },
      ['address.planet', 'industri']
    ],
    ['PUT', '/api/v1/companies', { filter: {}, record: { employes: 5 } }, ['record.employes']],
    ['PUT', '/api/v1/companies', { filter: {}, record: { employees: 5 }, upsert: true }, ['upsert']]
  ]
  for (const [method, url, payload, fields] of cases) {
    const res = await app.inject({ method: method as 'POST', url, headers: u.headers, payload })
    t.equal(res.statusCode, 400, `${method} ${url} ${JSON.stringify(payload)}`)
    const body = res.json()
    t.equal(body.error.code, 'VALIDATION')
    t.same(fieldsOf(body), fields, `names ${fields.join(', ')}`)
    t.ok(
      body.error.details.issues.every((i: any) => i.message === 'is not a known field'),
      'says what is wrong'
    )
  }
  {
    const res = await app.inject({
      method: 'PUT',
      url: '/api/v1/companies',
      headers: u.headers,
      payload: { filter: { nmae: 'Acme' }, record: { employees: 5 } }
    })
    t.equal(res.statusCode, 400, 'unknown field in a bulk filter')
    t.equal(res.json().error.details.field, 'nmae')
  }
  t.equal(await app.svc.db.collection('companies').countDocuments(), 1, 'no create landed')
  const stored = await app.svc.db.collection('companies').findOne({})
  t.notOk(stored?.employees, 'no update landed')
  {
    const res = await app.inject({
      method: 'PUT',
      url: `/api/v1/companies/${id}`,
      headers: u.headers,
      payload: { ...(created.json() as Record<string, unknown>), employees: 7 }
    })
    t.equal(res.statusCode, 200, 'a read record sent back (stamped keys) is still accepted')
    t.equal(res.json().employees, 7)
  }
})

t.test('every validation issue is listed, bounded at 50 with a truncated flag', async (t) => {
  const app = await buildCoreApp(t)
  const u = makeUser()
  {
    const res = await app.inject({
      method: 'POST',
      url: '/api/v1/deals',
      headers: u.headers,
      payload: { amount: 'lots', stage: 'dreaming', closeDate: 'soon', bogus: 1 }
    })
    t.equal(res.statusCode, 400)
    const body = res.json()
    t.same(fieldsOf(body), ['amount', 'bogus', 'closeDate', 'stage', 'title'], 'every problem at once')
    t.match(body.error.message, /\(and 4 more, see details\.issues\)$/)
    t.notOk(body.error.details.truncated, 'not truncated')
  }
  {
    const payload: Record<string, unknown> = { title: 'x', amount: 1 }
    for (let i = 0; i < 120; i++) payload[`extra${i}`] = i
    const res = await app.inject({ method: 'POST', url: '/api/v1/deals', headers: u.headers, payload })
    t.equal(res.statusCode, 400)
    const { details } = res.json().error
    t.equal(details.issues.length, 50, 'at most 50 issues')
    t.equal(details.truncated, true, 'truncated flag')
  }
  t.equal(await app.svc.db.collection('deals').countDocuments(), 0)
})

t.test('service layer (GraphQL, MCP, agent): the same refusals, every issue listed', async (t) => {
  const app = await buildCoreApp(t)
  const u = makeUser()
  const ctx: RequestContext = { identity: { kind: 'user', userId: u.userId, roles: ['user'] }, surface: 'graphql' }
  const svc = app.svc.services.get('companies')
  const rec = await svc.create(ctx, { name: 'Acme' })
  await t.rejects(
    svc.create(ctx, { name: 'B', nmae: 'x', address: { city: 'P', zip: 1 } }),
    { code: 'VALIDATION', details: { issues: [{ field: 'nmae' }, { field: 'address.zip' }] } },
    'create'
  )
  await t.rejects(
    svc.updateById(ctx, rec._id, { employes: 1 }),
    { code: 'VALIDATION', details: { field: 'employes' } },
    'update'
  )
  await t.rejects(
    svc.bulkPut(ctx, {}, { employes: 1 }),
    { code: 'VALIDATION', details: { field: 'employes' } },
    'bulk record'
  )
  await t.rejects(
    svc.bulkPut(ctx, { nmae: 'Acme' }, { employees: 1 }),
    { code: 'VALIDATION', details: { field: 'nmae' } },
    'bulk filter'
  )
  await t.rejects(
    svc.create(ctx, { employees: 'many', industry: 'space' }),
    { code: 'VALIDATION', details: { issues: [{ field: 'name' }, { field: 'industry' }, { field: 'employees' }] } },
    'several issues at once'
  )
  t.equal(await app.svc.db.collection('companies').countDocuments(), 1)
})

t.test(
  'the generated TypeBox schemas say additionalProperties: false (Swagger, GraphQL, MCP, client see it)',
  async (t) => {
    const app = await buildCoreApp(t)
    const { schemas } = app.svc.services.get('companies').model
    for (const name of ['create', 'update', 'bulk'] as const) {
      t.equal((schemas[name] as any).additionalProperties, false, name)
    }
    t.equal((schemas.create as any).properties.address.additionalProperties, false, 'nested objects too')
    t.equal((schemas.bulk as any).properties.record.additionalProperties, false, 'bulk record')
  }
)

t.test('a File field is refused in JSON bodies on every path (FileMeta comes from the file routes only)', async (t) => {
  const app = await buildCoreApp(t, {
    schemas: [
      {
        path: 'docs',
        fields: [
          { name: 'title', type: String },
          { name: 'scan', type: 'File' }
        ]
      }
    ]
  })
  const u = makeUser()
  const meta = {
    key: 'x/y',
    size: 1,
    contentType: 'text/plain',
    originalName: 'a.txt',
    uploadedAt: '2024-01-01T00:00:00Z'
  }
  const created = await app.inject({ method: 'POST', url: '/api/v1/docs', headers: u.headers, payload: { title: 'a' } })
  for (const [method, url, payload, field] of [
    ['POST', '/api/v1/docs', { title: 'b', scan: meta }, 'scan'],
    ['PUT', `/api/v1/docs/${created.json()._id as string}`, { scan: meta }, 'scan'],
    ['PUT', '/api/v1/docs', { filter: {}, record: { scan: null } }, 'scan']
  ] as const) {
    const res = await app.inject({ method, url, headers: u.headers, payload })
    t.equal(res.statusCode, 400, `${method} ${url}`)
    t.match(res.json().error, { code: 'VALIDATION', message: /file field/, details: { field } })
  }
  const ctx: RequestContext = { identity: { kind: 'user', userId: u.userId, roles: ['user'] }, surface: 'mcp' }
  await t.rejects(
    app.svc.services.get('docs').create(ctx, { title: 'c', scan: meta }),
    { code: 'VALIDATION', details: { field: 'scan' } },
    'service create'
  )
  t.equal(await app.svc.db.collection('docs').countDocuments({ scan: { $exists: true } }), 0, 'no FileMeta stored')
})
