import t from 'tap'
import { buildCoreApp, makeUser } from './helper.js'

// The quick-start CRM (schema/versions/v1) shows relations, search and an aggregation end to end.
t.test('example schemas: include, q and aggregations', async (t) => {
  const app = await buildCoreApp(t)
  const u = makeUser()
  const post = async (path: string, payload: Record<string, unknown>): Promise<any> => {
    const res = await app.inject({ method: 'POST', url: `/api/v1/${path}`, headers: u.headers, payload })
    t.equal(res.statusCode, 201, `POST ${path}`)
    return res.json()
  }
  const get = async (url: string): Promise<any> => {
    const res = await app.inject({ method: 'GET', url, headers: u.headers })
    t.equal(res.statusCode, 200, `GET ${url}`)
    return res.json()
  }
  const acme = await post('companies', { name: 'Acme Rockets', address: { city: 'Tucson' } })
  const wile = await post('contacts', {
    firstName: 'Wile',
    lastName: 'Coyote',
    email: 'wile@acme.test',
    companyId: acme._id
  })
  await post('deals', {
    title: 'Rocket skates',
    amount: 500,
    stage: 'won',
    companyId: acme._id,
    contactId: wile._id,
    closeDate: '2024-03-01'
  })
  await post('deals', { title: 'Giant magnet', amount: 2000, companyId: acme._id, closeDate: '2024-08-01' })
  {
    const body = await get('/api/v1/deals?__include=company,contact&__sort=amount:asc')
    t.same(
      body.results.map((d: any) => [d.title, d.company.name, d.contact?.lastName ?? null]),
      [
        ['Rocket skates', 'Acme Rockets', 'Coyote'],
        ['Giant magnet', 'Acme Rockets', null]
      ]
    )
  }
  {
    const body = await get(`/api/v1/companies/${acme._id as string}?__include=contacts,deals`)
    t.equal(body.contacts[0].email, 'wile@acme.test')
    t.same(
      body.deals.map((d: any) => d.title),
      ['Giant magnet', 'Rocket skates'],
      'newest first'
    )
  }
  t.same(
    (await get('/api/v1/contacts?q=coyote')).results.map((c: any) => c._id),
    [wile._id]
  )
  t.same((await get('/api/v1/deals/aggregations/byStage')).results, [
    { _id: 'prospecting', count: 1, total: 2000 },
    { _id: 'won', count: 1, total: 500 }
  ])
  t.same((await get('/api/v1/deals/aggregations/byStage?closingAfter=2024-06-01')).results, [
    { _id: 'prospecting', count: 1, total: 2000 }
  ])
  const schema = await get('/api/v1/deals-schema')
  t.same(schema.aggregations[0].params, [
    { name: 'minAmount', type: 'Number', required: false },
    { name: 'closingAfter', type: 'date', required: false }
  ])
})
