import t, { type Test } from 'tap'
import type { FastifyInstance } from 'fastify'
import type { RequestContext } from '../src/index.js'
import { buildCoreApp, makeUser, type TestUser } from './helper.js'
import { makeAggregationSchemas } from './fixtures/aggregation-schemas.js'

// Issue 9: JavaScript built-ins were taken for fields (`?constructor=1` → "not a valid function
// Object()…"). Every one of them is simply an unknown name, in every position a name is read.
const BUILTINS = [
  'constructor',
  'toString',
  'valueOf',
  'hasOwnProperty',
  'isPrototypeOf',
  '__proto__',
  'prototype',
  '__defineGetter__'
]

const notes = {
  path: 'notes',
  fields: [
    { name: 'body', type: String, required: true, searchable: true },
    { name: 'rank', type: Number },
    { name: 'contactId', type: String }
  ],
  relations: { contact: { belongsTo: 'contacts', fk: 'contactId' } }
}
const contacts = { path: 'contacts', fields: [{ name: 'name', type: String }] }
const tickets = {
  path: 'tickets',
  fields: [
    { name: 'title', type: String, required: true },
    {
      name: 'status',
      type: String,
      stateMachine: { initial: 'open', states: ['open', 'closed'], transitions: { open: ['closed'], closed: [] } }
    }
  ]
}

function bad (t: Test, res: { statusCode: number; json: () => any }, name: string, label: string): void {
  t.equal(res.statusCode, 400, `${label}: 400`)
  const body = res.json()
  t.equal(body.error?.code, 'VALIDATION', `${label}: VALIDATION`)
  t.notMatch(JSON.stringify(body), /native code|function |\[object /, `${label}: no built-in leaks into the answer`)
  const named =
    body.error.details?.field === name ||
    JSON.stringify(body.error.details?.issues ?? []).includes(`"${name}"`) ||
    (body.error.message as string).includes(name)
  t.ok(named, `${label}: names '${name}' (${body.error.message as string})`)
}

async function setup (t: Test): Promise<{ app: FastifyInstance; u: TestUser; noteId: string }> {
  const app = await buildCoreApp(t, { schemas: [notes, contacts, tickets, ...makeAggregationSchemas()] })
  const u = makeUser()
  const res = await app.inject({
    method: 'POST',
    url: '/api/v1/notes',
    headers: u.headers,
    payload: { body: 'hello', rank: 1 }
  })
  t.equal(res.statusCode, 201, 'seed note')
  return { app, u, noteId: res.json()._id }
}

t.test(
  'REST: built-in names are unknown fields in filters, sorts, includes, bulk filters, bodies and aggregation params',
  async (t) => {
    const { app, u, noteId } = await setup(t)
    const get = async (url: string): Promise<any> => await app.inject({ method: 'GET', url, headers: u.headers })
    for (const name of BUILTINS) {
      const q = encodeURIComponent(name)
      bad(t, await get(`/api/v1/notes?${q}=1`), name, `filter ?${name}=1`)
      bad(
        t,
        await get(`/api/v1/notes?body=${encodeURIComponent(JSON.stringify({ [name]: 'x' }))}`),
        name,
        `operator {"${name}":…}`
      )
      bad(t, await get(`/api/v1/notes?__sort=${q}:asc`), name, `__sort=${name}:asc`)
      bad(t, await get(`/api/v1/notes?q=hello&__sort=score,${q}:desc`), name, `__sort=score,${name}:desc with q`)
      bad(t, await get(`/api/v1/notes?__include=${q}`), name, `__include=${name}`)
      bad(t, await get(`/api/v1/notes/${noteId}?__include=${q}`), name, `GET by id __include=${name}`)
      bad(t, await get(`/api/v1/deals/aggregations/byStage?${q}=1`), name, `aggregation param ${name}`)
      // Raw JSON text: a JS object literal cannot carry an own `__proto__` key.
      const json = (o: string): { headers: Record<string, string>; payload: string } => ({
        headers: { ...u.headers, 'content-type': 'application/json' },
        payload: o
      })
      const key = JSON.stringify(name)
      bad(
        t,
        await app.inject({ method: 'POST', url: '/api/v1/notes', ...json(`{"body":"x",${key}:1}`) }),
        name,
        `create body ${name}`
      )
      bad(
        t,
        await app.inject({ method: 'PUT', url: `/api/v1/notes/${noteId}`, ...json(`{${key}:1}`) }),
        name,
        `update body ${name}`
      )
      bad(
        t,
        await app.inject({ method: 'PUT', url: '/api/v1/notes', ...json(`{"filter":{${key}:1},"record":{"rank":2}}`) }),
        name,
        `bulk filter ${name}`
      )
      bad(
        t,
        await app.inject({ method: 'PUT', url: '/api/v1/notes', ...json(`{"filter":{},"record":{${key}:1}}`) }),
        name,
        `bulk record ${name}`
      )
    }
    const stored = await app.svc.db.collection('notes').find({}).toArray()
    t.equal(stored.length, 1, 'nothing was created')
    t.equal(stored[0].rank, 1, 'nothing was updated')
    t.equal(({} as Record<string, unknown>).polluted, undefined, 'no prototype pollution')
  }
)

t.test('service layer (every other surface): the same names are unknown', async (t) => {
  const { app, u, noteId } = await setup(t)
  const ctx: RequestContext = { identity: { kind: 'user', userId: u.userId, roles: ['user'] }, surface: 'mcp' }
  const svc = app.svc.services.get('notes')
  // JSON.parse makes an own `__proto__` key, as any surface decoding JSON would hand over.
  const own = (name: string, v: unknown): Record<string, unknown> =>
    JSON.parse(`{${JSON.stringify(name)}:${JSON.stringify(v)}}`)
  for (const name of BUILTINS) {
    await t.rejects(
      svc.list(ctx, { filter: own(name, '1') }),
      { statusCode: 400, code: 'VALIDATION' },
      `list filter ${name}`
    )
    await t.rejects(
      svc.list(ctx, { sort: `${name}:asc` }),
      { statusCode: 400, code: 'VALIDATION', details: { field: name } },
      `list sort ${name}`
    )
    await t.rejects(svc.list(ctx, { include: name }), { statusCode: 400, code: 'VALIDATION' }, `list include ${name}`)
    await t.rejects(
      svc.create(ctx, { body: 'x', ...own(name, 1) }),
      { statusCode: 400, code: 'VALIDATION', details: { issues: [{ field: name }] } },
      `create ${name}`
    )
    await t.rejects(
      svc.updateById(ctx, noteId, own(name, 1)),
      { statusCode: 400, code: 'VALIDATION', details: { issues: [{ field: name }] } },
      `update ${name}`
    )
    await t.rejects(
      svc.bulkPut(ctx, own(name, 1), { rank: 5 }),
      { statusCode: 400, code: 'VALIDATION' },
      `bulk filter ${name}`
    )
    await t.rejects(svc.bulkPut(ctx, {}, own(name, 1)), { statusCode: 400, code: 'VALIDATION' }, `bulk record ${name}`)
    await t.rejects(
      app.svc.services.get('tickets').transition(ctx, noteId, name, 'closed'),
      { statusCode: 400, code: 'VALIDATION' },
      `transition field ${name}`
    )
    await t.rejects(
      app.svc.services.get('deals').aggregations.run(ctx, 'byStage', own(name, '1')),
      { statusCode: 400, code: 'VALIDATION' },
      `aggregation param ${name}`
    )
  }
  t.equal(await app.svc.db.collection('notes').countDocuments({ rank: 5 }), 0, 'no bulk write landed')
})

t.test('a schema may declare fields named like built-ins; lookups find only the declared ones', async (t) => {
  const app = await buildCoreApp(t, {
    schemas: [
      {
        path: 'odd',
        fields: [
          { name: 'constructor', type: String },
          { name: 'valueOf', type: Number },
          { name: 'toString', type: String, required: true }
        ]
      }
    ]
  })
  const u = makeUser()
  {
    // `valueOf` and `constructor` absent: the prototype's functions must not be read as their values.
    const res = await app.inject({ method: 'POST', url: '/api/v1/odd', headers: u.headers, payload: { toString: 'b' } })
    t.equal(res.statusCode, 201, `create without the optional built-in-named fields: ${res.body}`)
    t.notOk(Object.hasOwn(res.json(), 'valueOf'), 'valueOf not stored')
  }
  {
    const res = await app.inject({
      method: 'POST',
      url: '/api/v1/odd',
      headers: u.headers,
      payload: { constructor: 'a', valueOf: 2, toString: 'c' }
    })
    t.equal(res.statusCode, 201, 'create with them')
    t.match(res.json(), { constructor: 'a', valueOf: 2, toString: 'c' })
  }
  {
    const res = await app.inject({
      method: 'POST',
      url: '/api/v1/odd',
      headers: u.headers,
      payload: { constructor: 'a' }
    })
    t.equal(res.statusCode, 400, 'a required built-in-named field is required')
    t.equal(res.json().error.details.field, 'toString')
  }
  {
    const res = await app.inject({
      method: 'GET',
      url: '/api/v1/odd?constructor=a&__sort=valueOf:desc',
      headers: u.headers
    })
    t.equal(res.statusCode, 200, 'filter and sort on them')
    t.equal(res.json().totalResults, 1)
  }
})
