import t from 'tap'
import { buildApp, makeUser } from './helper.js'

// Decision: a replayed Idempotency-Key answers the first response again even after the record
// was soft-deleted. The key says "this create happened"; it neither re-creates nor restores.
t.test('replaying a create after the record was soft-deleted', async (t) => {
  const { app, db } = await buildApp(t)
  const u = makeUser()
  const headers = { ...u.headers, 'idempotency-key': 'create-note-1' }
  const first = await app.inject({ method: 'POST', url: '/api/v1/notes', headers, payload: { body: 'a' } })
  t.equal(first.statusCode, 201)
  const id = first.json()._id
  t.equal((await app.inject({ method: 'DELETE', url: `/api/v1/notes/${id}`, headers: u.headers })).statusCode, 200)
  const replay = await app.inject({ method: 'POST', url: '/api/v1/notes', headers, payload: { body: 'a' } })
  t.equal(replay.statusCode, 201, 'the first status again')
  t.equal(replay.json()._id, id, 'the first record again')
  t.equal(await db.collection('notes').countDocuments(), 1, 'no second record')
  t.equal(
    (await app.inject({ method: 'GET', url: `/api/v1/notes/${id}`, headers: u.headers })).statusCode,
    404,
    'the record stays deleted (a replay does not restore)'
  )
  t.equal(
    (await app.inject({ method: 'POST', url: '/api/v1/notes', headers, payload: { body: 'other' } })).statusCode,
    409,
    'a different body with the same key is still 409'
  )
})
