import t from 'tap'
import { ConflictError, ValidationError } from '../src/index.js'
import { buildCoreApp, makeUser } from './helper.js'

type Args = Record<string, any>

const schemas = [
  {
    path: 'items',
    fields: [{ name: 'title', type: String, required: true }],
    hooks: {
      beforeCreate: ({ input }: Args) => {
        switch (input.title) {
          case 'conflict':
            throw { statusCode: 409, code: 'CONFLICT', message: 'already booked', details: { slot: 3 } } // eslint-disable-line no-throw-literal
          case 'typed':
            throw new ValidationError('title is reserved', { field: 'title' })
          case 'typed409':
            throw new ConflictError('taken')
          case 'forbidden':
            throw Object.assign(new Error('not today'), { statusCode: 403 })
          case 'missing':
            throw Object.assign(new Error('no parent'), { statusCode: 404 })
          case 'plain':
            throw new Error('db password is hunter2')
          case 'array':
            return ['nope']
          case 'async':
            return Promise.resolve({ title: 'from async' })
          case 'invalid':
            return { title: 42 }
          default:
            return undefined
        }
      },
      afterCreate: ({ record }: Args) => {
        if (record.title === 'after') throw new Error('after boom')
      },
      afterUpdate: async () => {
        throw new Error('async after boom')
      },
      beforeDelete: ({ current }: Args) => {
        if (current.title === 'keep') throw new ValidationError('keep me')
      },
      afterDelete: () => {
        throw new Error('after delete boom')
      }
    }
  }
]

t.test('before-hook throws become the envelope; after-hook throws never change the answer', async (t) => {
  const app = await buildCoreApp(t, { schemas, options: { production: true } })
  const u = makeUser()
  const post = async (title: string) =>
    await app.inject({ method: 'POST', url: '/api/v1/items', headers: u.headers, payload: { title } })
  const expect: Array<[string, number, unknown]> = [
    ['conflict', 409, { error: { code: 'CONFLICT', message: 'already booked', details: { slot: 3 } } }],
    ['typed', 400, { error: { code: 'VALIDATION', message: 'title is reserved', details: { field: 'title' } } }],
    ['typed409', 409, { error: { code: 'CONFLICT', message: 'taken' } }],
    ['forbidden', 403, { error: { code: 'FORBIDDEN', message: 'not today' } }],
    ['missing', 404, { error: { code: 'NOT_FOUND', message: 'no parent' } }],
    ['plain', 500, { error: { code: 'INTERNAL', message: 'internal server error' } }],
    ['array', 500, { error: { code: 'INTERNAL', message: 'internal server error' } }]
  ]
  for (const [title, status, body] of expect) {
    const res = await post(title)
    t.equal(res.statusCode, status, `POST title=${title}`)
    t.same(res.json(), body, `envelope for ${title}`)
    t.notMatch(res.body, /hunter2|at .*\.ts/, 'no message or stack leak in production')
  }
  t.equal(await app.svc.db.collection('items').countDocuments(), 0, 'a rejecting hook stores nothing')
  {
    const res = await post('async')
    t.equal(res.statusCode, 201, 'a promise returned by a hook is awaited')
    t.equal(res.json().title, 'from async')
    const bad = await post('invalid')
    t.equal(bad.statusCode, 400, "a hook's result is validated like client input")
  }
  {
    const res = await post('after')
    t.equal(res.statusCode, 201, 'afterCreate throw: still 201')
    t.equal(res.json().title, 'after')
    const id = res.json()._id
    const upd = await app.inject({
      method: 'PUT',
      url: `/api/v1/items/${id}`,
      headers: u.headers,
      payload: { title: 'keep' }
    })
    t.equal(upd.statusCode, 200, 'afterUpdate rejection: still 200')
    t.equal(upd.json().title, 'keep')
    const del = await app.inject({ method: 'DELETE', url: `/api/v1/items/${id}`, headers: u.headers })
    t.equal(del.statusCode, 400, 'beforeDelete veto')
    t.equal(await app.svc.db.collection('items').countDocuments({ title: 'keep' }), 1, 'vetoed delete removed nothing')
    await app.inject({ method: 'PUT', url: `/api/v1/items/${id}`, headers: u.headers, payload: { title: 'go' } })
    const del2 = await app.inject({ method: 'DELETE', url: `/api/v1/items/${id}`, headers: u.headers })
    t.equal(del2.statusCode, 200, 'afterDelete throw: still 200')
  }
})

t.test('outside production a plain hook error keeps its message (never a stack)', async (t) => {
  const app = await buildCoreApp(t, { schemas, options: { production: false } })
  const res = await app.inject({
    method: 'POST',
    url: '/api/v1/items',
    headers: makeUser().headers,
    payload: { title: 'plain' }
  })
  t.equal(res.statusCode, 500)
  t.equal(res.json().error.code, 'INTERNAL')
  t.notOk('stack' in res.json().error)
})
