import t from 'tap'
import { buildCoreApp, makeUser } from './helper.js'

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/
const HEX = /^[0-9a-f]{24}$/

t.test('create, get, update, delete through REST with stamping and BSON conversion', async (t) => {
  const app = await buildCoreApp(t)
  const alice = makeUser({ account_id: 'acct-1' })
  let id = ''
  {
    const res = await app.inject({
      method: 'POST',
      url: '/api/v1/contacts',
      headers: alice.headers,
      payload: {
        firstName: 'Ada',
        lastName: 'Lovelace',
        email: 'ADA@Example.COM',
        birthday: '1815-12-10',
        tags: ['vip'],
        address: { city: 'London' },
        customFields: { shoe: 42 },
        userId: 'intruder',
        accountId: 'other',
        createdAt: '1999-01-01T00:00:00.000Z'
      }
    })
    t.equal(res.statusCode, 201, 'POST /api/v1/contacts')
    const rec = res.json()
    id = rec._id
    t.match(rec._id, HEX, '_id is a 24-hex string')
    t.equal(rec.userId, alice.userId, 'userId stamped from the token')
    t.equal(rec.accountId, 'acct-1', 'accountId stamped from the token')
    t.equal(rec.email, 'ada@example.com', 'lowercase applied')
    t.equal(rec.status, 'lead', 'enum default')
    t.equal(rec.score, 0, 'number default')
    t.equal(rec.marketingOptIn, false, 'boolean default')
    t.equal(rec.birthday, '1815-12-10T00:00:00.000Z', 'date as ISO')
    t.match(rec.createdAt, ISO)
    t.not(rec.createdAt, '1999-01-01T00:00:00.000Z', 'createdAt is not client-supplied')
    t.equal(rec.createdAt, rec.updatedAt)
    t.same(rec.customFields, { shoe: 42 })
  }
  {
    const doc = await app.svc.db.collection('contacts').findOne({})
    t.equal(doc?.userId, alice.userId, 'stored userId')
    t.equal(doc?.accountId, 'acct-1', 'stored accountId')
    t.type(doc?.birthday, Date, 'stored as a BSON date')
    t.type(doc?.createdAt, Date)
  }
  {
    const res = await app.inject({ method: 'GET', url: `/api/v1/contacts/${id}`, headers: alice.headers })
    t.equal(res.statusCode, 200, 'GET by id')
    t.equal(res.json().email, 'ada@example.com')
  }
  {
    await new Promise((resolve) => setTimeout(resolve, 5))
    const res = await app.inject({
      method: 'PUT',
      url: `/api/v1/contacts/${id}`,
      headers: alice.headers,
      payload: { title: 'Countess', score: 7, phone: null, userId: 'intruder', lastContactedAt: '2024-05-01T10:00:00Z' }
    })
    t.equal(res.statusCode, 200, 'PUT by id')
    const rec = res.json()
    t.equal(rec.title, 'Countess')
    t.equal(rec.score, 7)
    t.equal(rec.firstName, 'Ada', 'partial update keeps other fields')
    t.equal(rec.userId, alice.userId, 'userId cannot be changed')
    t.equal(rec.lastContactedAt, '2024-05-01T10:00:00.000Z')
    t.ok(rec.updatedAt > rec.createdAt, 'updatedAt moves')
    const stored = await app.svc.db.collection('contacts').findOne({})
    t.equal(stored?.userId, alice.userId)
    t.type(stored?.lastContactedAt, Date)
  }
  {
    const res = await app.inject({
      method: 'PUT',
      url: `/api/v1/contacts/${id}`,
      headers: alice.headers,
      payload: { title: null }
    })
    t.equal(res.statusCode, 200, 'PUT with null clears an optional field')
    t.notOk('title' in res.json())
  }
  {
    const res = await app.inject({ method: 'DELETE', url: `/api/v1/contacts/${id}`, headers: alice.headers })
    t.equal(res.statusCode, 200, 'DELETE by id')
    t.equal(res.json()._id, id, 'answers the deleted record')
  }
  {
    const res = await app.inject({ method: 'GET', url: `/api/v1/contacts/${id}`, headers: alice.headers })
    t.equal(res.statusCode, 404, 'GET after delete')
    t.equal(res.json().error.code, 'NOT_FOUND')
  }
})

t.test('nested sub-schemas and arrays of sub-documents', async (t) => {
  const app = await buildCoreApp(t)
  const u = makeUser()
  {
    const res = await app.inject({
      method: 'POST',
      url: '/api/v1/deals',
      headers: u.headers,
      payload: {
        title: 'Big',
        amount: 1000,
        lineItems: [
          { sku: 'A1', unitPrice: 5 },
          { sku: 'B2', quantity: 3 }
        ],
        metadata: { source: 'web', nested: [1, { x: 2 }] }
      }
    })
    t.equal(res.statusCode, 201, 'POST /api/v1/deals')
    const rec = res.json()
    t.same(
      rec.lineItems,
      [
        { sku: 'A1', quantity: 1, unitPrice: 5 },
        { sku: 'B2', quantity: 3 }
      ],
      'defaults inside array items'
    )
    t.equal(rec.currency, 'USD')
    t.equal(rec.stage, 'prospecting')
  }
  {
    const res = await app.inject({
      method: 'POST',
      url: '/api/v1/companies',
      headers: u.headers,
      payload: { name: 'Acme', domain: 'ACME.io', address: { city: 'Paris' } }
    })
    t.equal(res.statusCode, 201, 'POST /api/v1/companies')
    t.same(res.json().address, { city: 'Paris', country: 'US' }, 'nested default')
    t.equal(res.json().domain, 'acme.io')
  }
  {
    const res = await app.inject({
      method: 'POST',
      url: '/api/v1/companies',
      headers: u.headers,
      payload: { name: 'NoCity', address: { street: 'x' } }
    })
    t.equal(res.statusCode, 400, 'nested required field missing')
    t.equal(res.json().error.details.field, 'address.city')
  }
})

t.test('GET -schema describes the resource', async (t) => {
  const app = await buildCoreApp(t)
  const u = makeUser()
  const res = await app.inject({ method: 'GET', url: '/api/v1/deals-schema', headers: u.headers })
  t.equal(res.statusCode, 200)
  const body = res.json()
  t.equal(body.path, 'deals')
  t.match(
    body.fields.find((f: { name: string }) => f.name === 'amount'),
    { type: 'Number', required: true, min: 0 }
  )
  t.match(
    body.fields.find((f: { name: string }) => f.name === 'userId'),
    { stamped: true }
  )
  t.same(body.relations.company, { kind: 'belongsTo', target: 'companies', fk: 'companyId' })
  t.ok(body.schemas.create)
})
