import t from 'tap'
import { buildCoreApp, makeUser } from './helper.js'

t.test('bodies that fail the generated schema are 400 VALIDATION naming the field', async (t) => {
  const app = await buildCoreApp(t)
  const u = makeUser()
  const cases: Array<[string, string, unknown, string]> = [
    ['POST', '/api/v1/deals', { amount: 5 }, 'title'],
    ['POST', '/api/v1/deals', { title: 'x', amount: 'lots' }, 'amount'],
    ['POST', '/api/v1/deals', { title: 'x', amount: -1 }, 'amount'],
    ['POST', '/api/v1/deals', { title: 'x', amount: '5' }, 'amount'],
    ['POST', '/api/v1/deals', { title: 'x', amount: true }, 'amount'],
    ['POST', '/api/v1/deals', { title: 123, amount: 1 }, 'title'],
    ['POST', '/api/v1/tasks', { title: 'x', done: 'yes' }, 'done'],
    ['POST', '/api/v1/deals', { title: 'x', amount: 1, stage: 'dreaming' }, 'stage'],
    ['POST', '/api/v1/deals', { title: 'x', amount: 1, closeDate: 'next week' }, 'closeDate'],
    ['POST', '/api/v1/deals', { title: 'x', amount: 1, lineItems: [{ quantity: 2 }] }, 'lineItems.0.sku'],
    [
      'POST',
      '/api/v1/deals',
      { title: 'x', amount: 1, lineItems: [{ sku: 'a', quantity: 0 }] },
      'lineItems.0.quantity'
    ],
    ['POST', '/api/v1/deals', { title: { $gt: '' }, amount: 1 }, 'title'],
    ['POST', '/api/v1/contacts', { firstName: 'a', lastName: 'b', email: 'e@x', tags: 'notalist' }, 'tags'],
    ['POST', '/api/v1/contacts', { firstName: 'a', lastName: 'b', email: 'e@x', address: 'Main St' }, 'address'],
    ['PUT', '/api/v1/deals/0123456789abcdef01234567', { amount: -5 }, 'amount'],
    ['PUT', '/api/v1/deals/0123456789abcdef01234567', { title: null }, 'title'],
    ['PUT', '/api/v1/deals', { filter: {}, record: { stage: 'nope' } }, 'record.stage'],
    ['PUT', '/api/v1/deals', { record: { stage: 'won' } }, 'filter']
  ]
  for (const [method, url, payload, field] of cases) {
    const res = await app.inject({ method: method as 'POST', url, headers: u.headers, payload: payload as object })
    t.equal(res.statusCode, 400, `${method} ${url} ${JSON.stringify(payload)}`)
    const body = res.json()
    t.equal(body.error.code, 'VALIDATION')
    t.equal(body.error.details.field, field, `names ${field}`)
  }
  t.equal(await app.svc.db.collection('deals').countDocuments(), 0, 'nothing was written')
})

t.test('invalid JSON and wrong content are 400 in the envelope', async (t) => {
  const app = await buildCoreApp(t)
  const u = makeUser()
  {
    const res = await app.inject({
      method: 'POST',
      url: '/api/v1/deals',
      headers: { ...u.headers, 'content-type': 'application/json' },
      payload: '{"title": "x",'
    })
    t.equal(res.statusCode, 400, 'truncated JSON')
    t.equal(res.json().error.code, 'VALIDATION')
  }
  {
    const res = await app.inject({
      method: 'POST',
      url: '/api/v1/deals',
      headers: { ...u.headers, 'content-type': 'application/json' },
      payload: '[1,2]'
    })
    t.equal(res.statusCode, 400, 'a JSON array body')
    t.equal(res.json().error.code, 'VALIDATION')
  }
  {
    const res = await app.inject({
      method: 'POST',
      url: '/api/v1/deals',
      headers: { ...u.headers, 'content-type': 'application/json' },
      payload: '{"__proto__": {"polluted": true}, "title": "x", "amount": 1}'
    })
    t.ok([201, 400].includes(res.statusCode), 'a __proto__ key is either dropped or refused')
    t.equal(({} as Record<string, unknown>).polluted, undefined, 'no prototype pollution')
  }
})

t.test('the service validates on its own, for surfaces without route schemas', async (t) => {
  const app = await buildCoreApp(t)
  const u = makeUser()
  const ctx = { identity: { kind: 'user' as const, userId: u.userId, roles: ['user'] }, surface: 'mcp' as const }
  const deals = app.svc.services.get('deals')
  const cases: Array<[unknown, string]> = [
    [{ title: 'x' }, 'amount'],
    [{ title: 'x', amount: '5' }, 'amount'],
    [{ title: 'x', amount: -1 }, 'amount'],
    [{ title: 'x', amount: 1, stage: 'nope' }, 'stage'],
    [{ title: 'x', amount: 1, closeDate: 12 }, 'closeDate'],
    [{ title: 'x', amount: 1, metadata: { $set: { userId: 'x' } } }, 'metadata'],
    [{ title: 'x', amount: 1, metadata: { 'a.b': 1 } }, 'metadata'],
    [{ title: 'x', amount: 1, lineItems: [{ sku: 5 }] }, 'lineItems.0.sku'],
    [{ title: 'x', amount: 1, lineItems: [{ sku: 'a', quantity: 0 }] }, 'lineItems.0.quantity'],
    ['not an object', '']
  ]
  for (const [input, field] of cases) {
    await t.rejects(
      deals.create(ctx, input),
      { statusCode: 400, code: 'VALIDATION', details: { field } },
      `create ${JSON.stringify(input)}`
    )
  }
  const rec = await deals.create(ctx, { title: 'ok', amount: 3, closeDate: new Date('2024-01-01'), userId: 'x' })
  t.equal(rec.closeDate, '2024-01-01T00:00:00.000Z', 'Date instances accepted from in-process callers')
  t.equal(rec.userId, u.userId, 'a stamped key in the input is ignored, never stored')
})

t.test('bodies over the limit are 413 in the envelope', async (t) => {
  const app = await buildCoreApp(t, { fastify: { bodyLimit: 1024 } })
  const u = makeUser()
  const res = await app.inject({
    method: 'POST',
    url: '/api/v1/notes',
    headers: u.headers,
    payload: { body: 'x'.repeat(4096) }
  })
  t.equal(res.statusCode, 413)
  t.same(res.json(), { error: { code: 'PAYLOAD_TOO_LARGE', message: 'request body is too large' } })
})
