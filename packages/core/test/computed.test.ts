import t from 'tap'
import { buildCoreApp, makeUser } from './helper.js'

t.test(
  'computed fields: derived on every read, never accepted, never stored (example contacts.fullName)',
  async (t) => {
    const app = await buildCoreApp(t)
    const u = makeUser()
    let id = ''
    {
      const res = await app.inject({
        method: 'POST',
        url: '/api/v1/contacts',
        headers: u.headers,
        payload: { firstName: ' Ada ', lastName: 'Lovelace', email: 'ada@example.com' }
      })
      t.equal(res.statusCode, 201, 'POST /contacts')
      t.equal(
        res.json().fullName,
        'Ada Lovelace',
        'computed on the create answer (after the example beforeCreate trims)'
      )
      id = res.json()._id
    }
    {
      const stored = await app.svc.db.collection('contacts').findOne({})
      t.notOk('fullName' in (stored ?? {}), 'not stored')
      const get = await app.inject({ method: 'GET', url: `/api/v1/contacts/${id}`, headers: u.headers })
      t.equal(get.json().fullName, 'Ada Lovelace', 'on get')
      const upd = await app.inject({
        method: 'PUT',
        url: `/api/v1/contacts/${id}`,
        headers: u.headers,
        payload: { lastName: 'King' }
      })
      t.equal(upd.json().fullName, 'Ada King', 'recomputed on the update answer')
      const list = await app.inject({ method: 'GET', url: '/api/v1/contacts', headers: u.headers })
      t.equal(list.json().results[0].fullName, 'Ada King', 'on list')
    }
    const refused: Array<[string, string, unknown, string]> = [
      ['POST', '/api/v1/contacts', { firstName: 'a', lastName: 'b', email: 'x@y.z', fullName: 'Bob' }, 'fullName'],
      ['PUT', `/api/v1/contacts/${id}`, { fullName: 'Bob' }, 'fullName'],
      ['PUT', '/api/v1/contacts', { filter: {}, record: { fullName: 'Bob' } }, 'fullName']
    ]
    for (const [method, url, payload, field] of refused) {
      const res = await app.inject({ method: method as 'PUT', url, headers: u.headers, payload: payload as object })
      t.equal(res.statusCode, 400, `${method} ${url} with a computed field`)
      t.match(res.json(), { error: { code: 'VALIDATION', details: { field } } })
    }
    for (const url of ['/api/v1/contacts?fullName=Ada', '/api/v1/contacts?__sort=fullName:asc']) {
      const res = await app.inject({ method: 'GET', url, headers: u.headers })
      t.equal(res.statusCode, 400, `${url}: computed values are not stored, so not filterable`)
    }
    {
      const res = await app.inject({ method: 'GET', url: '/api/v1/contacts-schema', headers: u.headers })
      const f = res.json().fields.find((x: { name: string }) => x.name === 'fullName')
      t.match(f, { name: 'fullName', computed: true }, 'listed as computed in the metadata')
    }
  }
)

t.test('a throwing computed function yields null and never breaks a list', async (t) => {
  const schemas = [
    {
      path: 'things',
      fields: [
        { name: 'n', type: Number },
        {
          name: 'inverse',
          type: Number,
          computed: (r: Record<string, unknown>) => {
            if (r.n === 0) throw new Error('div by zero')
            return 1 / Number(r.n)
          }
        },
        {
          name: 'mutator',
          type: String,
          computed: (r: Record<string, unknown>) => {
            r.n = 999
            return 'x'
          }
        },
        { name: 'when', type: Date, computed: (r: Record<string, unknown>) => new Date(String(r.createdAt)) }
      ]
    }
  ]
  const app = await buildCoreApp(t, { schemas })
  const u = makeUser()
  for (const n of [0, 4]) {
    await app.inject({ method: 'POST', url: '/api/v1/things', headers: u.headers, payload: { n } })
  }
  await app.svc.db.collection('things').updateMany({}, { $set: { inverse: 'stale stored value' } })
  const res = await app.inject({ method: 'GET', url: '/api/v1/things?__sort=n:asc', headers: u.headers })
  t.equal(res.statusCode, 200)
  const [zero, four] = res.json().results
  t.equal(zero.inverse, null, 'a throw yields null')
  t.equal(four.inverse, 0.25)
  t.equal(four.n, 4, 'a computed function mutating its argument does not change the answer')
  t.match(four.when, /^\d{4}-\d{2}-\d{2}T/, 'Date results are rendered as ISO strings')
})
