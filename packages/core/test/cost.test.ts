import t from 'tap'
import { latencyUnderAttack } from '@svc/testkit'
import { BULK_WRITE_PRICE, MAX_PAGE_SIZE, MAX_RELATED, pageRecords, recordValues, relatedRecords } from '../src/kit.js'
import { buildCoreApp, makeUser } from './helper.js'

// Issue 21: every operation is priced by what it can return before it runs (records × fields, a
// hasMany include at its real cap), against a per-request limit and a tenant's budget per minute.

t.test('a list is priced by its page and its includes before any query runs', async (t) => {
  const app = await buildCoreApp(t)
  const u = makeUser()
  const width = (path: string): number => recordValues(app.svc.registry.get('v1', path)!)
  const plain = MAX_PAGE_SIZE * width('contacts')
  const included = plain + MAX_PAGE_SIZE * width('companies') + MAX_RELATED * (width('deals') + width('notes'))
  {
    const res = await app.inject({
      method: 'GET',
      url: `/api/v1/contacts?__perPage=${MAX_PAGE_SIZE}&__include=company,deals,notes`,
      headers: u.headers
    })
    t.equal(
      res.statusCode,
      200,
      `the largest include of the example schemas fits the default limit (price ${included})`
    )
  }
  const tight = await buildCoreApp(t, { options: { maxRequestCost: included - 1 } })
  {
    const res = await tight.inject({
      method: 'GET',
      url: `/api/v1/contacts?__perPage=${MAX_PAGE_SIZE}&__include=company,deals,notes`,
      headers: u.headers
    })
    t.equal(res.statusCode, 400)
    t.same(res.json().error.details, { cost: included, limit: included - 1 }, 'the computed cost and the limit')
  }
  {
    const res = await tight.inject({
      method: 'GET',
      url: `/api/v1/contacts?__perPage=${MAX_PAGE_SIZE}`,
      headers: u.headers
    })
    t.equal(res.statusCode, 200, `the page alone costs ${plain}`)
  }
  {
    const small = await buildCoreApp(t, { options: { maxRequestCost: width('contacts') * 10 } })
    t.equal(
      (await small.inject({ method: 'GET', url: '/api/v1/contacts?__perPage=10', headers: u.headers })).statusCode,
      200,
      'exactly at the limit'
    )
    t.equal(
      (await small.inject({ method: 'GET', url: '/api/v1/contacts?__perPage=11', headers: u.headers })).statusCode,
      400,
      'one record over'
    )
    const bulk = await small.inject({
      method: 'PUT',
      url: '/api/v1/contacts',
      headers: u.headers,
      payload: { filter: { lastName: 'x' }, record: { lastName: 'y' } }
    })
    t.match(
      bulk.json().error,
      { code: 'VALIDATION', details: { cost: BULK_WRITE_PRICE } },
      'a bulk update is priced at the records it may touch'
    )
  }
})

t.test("a tenant's budget per minute: 429 with Retry-After; another tenant is served meanwhile", async (t) => {
  const app = await buildCoreApp(t)
  const price = MAX_PAGE_SIZE * recordValues(app.svc.registry.get('v1', 'deals')!)
  const limited = await buildCoreApp(t, { options: { tenantCostPerMinute: price * 5 } })
  const attacker = makeUser()
  const victim = makeUser()
  const list = async (who: ReturnType<typeof makeUser>): Promise<number> =>
    (await limited.inject({ method: 'GET', url: `/api/v1/deals?__perPage=${MAX_PAGE_SIZE}`, headers: who.headers }))
      .statusCode
  const { victimMs, attacks } = await latencyUnderAttack(
    async () => await list(attacker),
    async () => {
      const status = await list(victim)
      if (status !== 200) throw new Error(`the victim got ${status}`)
    },
    { concurrency: 20 }
  )
  t.equal(attacks.filter((s) => s === 200).length, 5, "five pages fit the attacker's minute")
  t.equal(attacks.filter((s) => s === 429).length, 15, 'the rest are refused')
  t.ok(victimMs < 2000, `the other tenant waited ${Math.round(victimMs)} ms at most`)
  const res = await limited.inject({ method: 'GET', url: '/api/v1/deals', headers: attacker.headers })
  t.equal(res.json().error.code, 'RATE_LIMITED')
  t.ok(
    Number(res.headers['retry-after']) >= 1 && Number(res.headers['retry-after']) <= 60,
    `Retry-After: ${String(res.headers['retry-after'])}`
  )
  t.match(res.json().error.details, { limit: price * 5 })
  t.equal(
    (await app.inject({ method: 'GET', url: '/api/v1/deals', headers: attacker.headers })).statusCode,
    200,
    'each app counts its own tenants (no shared store given)'
  )
})

t.test('writes and reads of one record cost that record; trusted calls are free', async (t) => {
  const app = await buildCoreApp(t, {
    options: { tenantCostPerMinute: 3 * recordValues((await buildCoreApp(t)).svc.registry.get('v1', 'tasks')!) }
  })
  const u = makeUser()
  const created = await app.inject({
    method: 'POST',
    url: '/api/v1/tasks',
    headers: u.headers,
    payload: { title: 'a' }
  })
  t.equal(created.statusCode, 201)
  t.equal(
    (await app.inject({ method: 'GET', url: `/api/v1/tasks/${String(created.json()._id)}`, headers: u.headers }))
      .statusCode,
    200
  )
  t.equal(
    (
      await app.inject({
        method: 'PUT',
        url: `/api/v1/tasks/${String(created.json()._id)}`,
        headers: u.headers,
        payload: { done: true }
      })
    ).statusCode,
    200
  )
  t.equal(
    (await app.inject({ method: 'DELETE', url: `/api/v1/tasks/${String(created.json()._id)}`, headers: u.headers }))
      .statusCode,
    429,
    'the fourth record operation of the minute'
  )
  const service = app.svc.services.get('tasks')
  const sys = { identity: null, surface: 'system' as const, system: true }
  for (let i = 0; i < 5; i++) {
    t.equal((await service.list(sys, { perPage: MAX_PAGE_SIZE })).totalResults, 1, 'system calls are never charged')
  }
})

t.test('options are checked at registration', async (t) => {
  await t.rejects(buildCoreApp(t, { options: { maxRequestCost: 0 } }), /maxRequestCost/)
  await t.rejects(buildCoreApp(t, { options: { tenantCostPerMinute: -1 } }), /tenantCostPerMinute/)
  const off = await buildCoreApp(t, { options: { tenantCostPerMinute: false } })
  t.equal(off.svc.cost.limits.tenantCostPerMinute, null, 'false: no budget over time')
})

t.test('the price list', async (t) => {
  t.equal(pageRecords(undefined, 20), 20, 'the default page size without a size')
  t.equal(pageRecords(500, 20), MAX_PAGE_SIZE, 'at most MAX_PAGE_SIZE')
  t.equal(pageRecords(0, 20), 1, 'at least one')
  t.equal(pageRecords(Number.NaN, 20), 20, 'not a number: the default')
  t.equal(relatedRecords('hasMany', 1), MAX_RELATED, 'a hasMany list holds up to its cap, even for one parent')
  t.equal(relatedRecords('belongsTo', 37), 37, 'one per parent')
  t.equal(relatedRecords('hasOne', 0), 0, 'no parents, nothing')
})

t.test("a caller's abort signal stops the service's reads", async (t) => {
  const app = await buildCoreApp(t)
  const u = makeUser()
  const ctx = {
    identity: { kind: 'user' as const, userId: u.userId, roles: ['user'] },
    surface: 'mcp' as const,
    signal: AbortSignal.abort(new Error('cancelled'))
  }
  const service = app.svc.services.get('deals')
  await t.rejects(service.list(ctx, {}), 'a list')
  await t.rejects(service.get(ctx, '65f0000000000000000000ff'), 'a get')
  t.equal(
    (await service.list({ ...ctx, signal: new AbortController().signal }, {})).totalResults,
    0,
    'a live signal changes nothing'
  )
})
