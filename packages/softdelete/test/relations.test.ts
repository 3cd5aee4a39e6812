import t from 'tap'
import { buildApp, makeUser } from './helper.js'

const SCHEMAS = [
  {
    path: 'contacts',
    collection: 'contacts',
    fields: [{ name: 'name', type: String, required: true }],
    relations: { notes: { hasMany: 'notes', fk: 'contactId' } }
  },
  {
    path: 'notes',
    collection: 'notes',
    fields: [
      { name: 'body', type: String, required: true },
      { name: 'contactId', type: String }
    ],
    relations: { contact: { belongsTo: 'contacts', fk: 'contactId' } }
  }
]

t.test('__include never populates tombstoned targets, whatever __includeDeleted says', async (t) => {
  const { app } = await buildApp(t, { schemas: SCHEMAS })
  const u = makeUser()
  const contact = (
    await app.inject({ method: 'POST', url: '/api/v1/contacts', headers: u.headers, payload: { name: 'Ada' } })
  ).json()._id
  const live = (
    await app.inject({
      method: 'POST',
      url: '/api/v1/notes',
      headers: u.headers,
      payload: { body: 'live', contactId: contact }
    })
  ).json()._id
  const dead = (
    await app.inject({
      method: 'POST',
      url: '/api/v1/notes',
      headers: u.headers,
      payload: { body: 'dead', contactId: contact }
    })
  ).json()._id
  await app.inject({ method: 'DELETE', url: `/api/v1/notes/${dead}`, headers: u.headers })
  for (const q of ['', '&__includeDeleted=true']) {
    const res = await app.inject({
      method: 'GET',
      url: `/api/v1/contacts/${contact}?__include=notes${q}`,
      headers: u.headers
    })
    t.equal(res.statusCode, 200, `GET contact ?__include=notes${q}`)
    t.same(
      res.json().notes.map((n: { _id: string }) => n._id),
      [live],
      `hasMany skips the tombstone (${q || 'default'})`
    )
  }
  await app.inject({ method: 'DELETE', url: `/api/v1/contacts/${contact}`, headers: u.headers })
  {
    const res = await app.inject({ method: 'GET', url: `/api/v1/notes/${live}?__include=contact`, headers: u.headers })
    t.equal(res.statusCode, 200)
    t.equal(res.json().contact, null, 'belongsTo a tombstoned target is null')
  }
  {
    const res = await app.inject({
      method: 'GET',
      url: '/api/v1/notes?__include=contact&__includeDeleted=true',
      headers: u.headers
    })
    t.equal(res.json().totalResults, 2, 'the parent list includes the tombstoned note')
    for (const n of res.json().results) {
      t.equal(n.contact, null, 'but its relation still excludes the tombstoned contact')
    }
  }
  {
    t.equal(
      (await app.inject({ method: 'POST', url: `/api/v1/contacts/${contact}/restore`, headers: u.headers })).statusCode,
      200
    )
    const res = await app.inject({ method: 'GET', url: `/api/v1/notes/${live}?__include=contact`, headers: u.headers })
    t.match(res.json().contact, { _id: contact, name: 'Ada' }, 'restored: reachable through the relation again')
  }
})
