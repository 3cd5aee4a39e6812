import t from 'tap'
import { buildCoreApp, makeUser } from './helper.js'

t.test("bulk PUT updates the caller's matching records and reports numAffected", async (t) => {
  const app = await buildCoreApp(t)
  const u = makeUser()
  for (const [title, stage] of [
    ['a', 'qualified'],
    ['b', 'qualified'],
    ['c', 'won']
  ]) {
    await app.inject({ method: 'POST', url: '/api/v1/deals', headers: u.headers, payload: { title, amount: 1, stage } })
  }
  {
    const res = await app.inject({
      method: 'PUT',
      url: '/api/v1/deals',
      headers: u.headers,
      payload: { filter: { stage: 'qualified' }, record: { stage: 'proposal', probability: 40 } }
    })
    t.equal(res.statusCode, 200, 'PUT /api/v1/deals')
    t.same(res.json(), { numAffected: 2 })
  }
  {
    const res = await app.inject({
      method: 'PUT',
      url: '/api/v1/deals',
      headers: u.headers,
      payload: { filter: { amount: '{"$gte":1}' }, record: { probability: null } }
    })
    t.same(res.json(), { numAffected: 3 }, 'operator filter; null unsets')
    t.equal(await app.svc.db.collection('deals').countDocuments({ probability: { $exists: true } }), 0)
  }
  {
    const res = await app.inject({
      method: 'PUT',
      url: '/api/v1/deals',
      headers: u.headers,
      payload: { filter: {}, record: {} }
    })
    t.equal(res.statusCode, 400, 'an empty record is refused')
  }
})

t.test('bulk PUT upserts one record when nothing matches and the result is a valid record', async (t) => {
  const app = await buildCoreApp(t)
  const u = makeUser({ account_id: 'org-9' })
  const created: unknown[] = []
  app.svc.events.on('deals.created', (e) => created.push(e))
  {
    const res = await app.inject({
      method: 'PUT',
      url: '/api/v1/deals',
      headers: u.headers,
      payload: { filter: { title: 'renewal' }, record: { amount: 500 } }
    })
    t.same(res.json(), { numAffected: 1 }, 'inserted')
    const doc = await app.svc.db.collection('deals').findOne({ title: 'renewal' })
    t.match(
      doc,
      { title: 'renewal', amount: 500, userId: u.userId, accountId: 'org-9', stage: 'prospecting', currency: 'USD' },
      'equality values, record, defaults and stamps'
    )
    t.type(doc?.createdAt, Date)
    t.equal(created.length, 1, 'created event for the upserted record')
  }
  {
    const res = await app.inject({
      method: 'PUT',
      url: '/api/v1/deals',
      headers: u.headers,
      payload: { filter: { title: 'renewal' }, record: { amount: 600 } }
    })
    t.same(res.json(), { numAffected: 1 }, 'second call updates')
    t.equal(await app.svc.db.collection('deals').countDocuments(), 1)
  }
  {
    const res = await app.inject({
      method: 'PUT',
      url: '/api/v1/deals',
      headers: u.headers,
      payload: { filter: { title: 'nothing' }, record: { stage: 'won' } }
    })
    t.same(res.json(), { numAffected: 0 }, 'no upsert when the new record would miss required fields')
  }
  {
    const other = makeUser()
    const id = (await app.svc.db.collection('deals').findOne({}))!._id.toHexString()
    const res = await app.inject({
      method: 'PUT',
      url: '/api/v1/deals',
      headers: other.headers,
      payload: { filter: { _id: id }, record: { title: 'x', amount: 1 } }
    })
    t.same(res.json(), { numAffected: 0 }, 'never an upsert on an _id filter (no cross-tenant id probing)')
    const res2 = await app.inject({
      method: 'PUT',
      url: '/api/v1/deals',
      headers: other.headers,
      payload: { filter: { userId: u.userId }, record: { title: 'x', amount: 1 } }
    })
    t.same(res2.json(), { numAffected: 0 }, 'never an upsert on a stamped field')
    t.equal(await app.svc.db.collection('deals').countDocuments(), 1)
  }
})

t.test('bulk PUT over more than 1000 matching records is refused before anything is written', async (t) => {
  const app = await buildCoreApp(t)
  const u = makeUser()
  const now = new Date()
  await app.svc.db.collection('deals').insertMany(
    Array.from({ length: 1001 }, (_, i) => ({
      title: `d${i}`,
      amount: 1,
      stage: 'qualified',
      userId: u.userId,
      createdAt: now,
      updatedAt: now
    }))
  )
  const res = await app.inject({
    method: 'PUT',
    url: '/api/v1/deals',
    headers: u.headers,
    payload: { filter: { stage: 'qualified' }, record: { probability: 10 } }
  })
  t.equal(res.statusCode, 400)
  t.match(res.json(), { error: { code: 'VALIDATION', details: { field: 'filter' } } })
  t.equal(await app.svc.db.collection('deals').countDocuments({ probability: 10 }), 0, 'nothing written')
  await app.svc.db.collection('deals').deleteOne({ title: 'd0' })
  const ok = await app.inject({
    method: 'PUT',
    url: '/api/v1/deals',
    headers: u.headers,
    payload: { filter: { stage: 'qualified' }, record: { probability: 10 } }
  })
  t.same(ok.json(), { numAffected: 1000 }, 'exactly 1000 is allowed')
})
