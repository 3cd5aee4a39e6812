import t from 'tap'
import Fastify from 'fastify'
import { getTestDb } from '@svc/testkit'
import svcCore, { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../src/index.js'
import { normalizeError } from '../src/kit.js'
import { buildCoreApp, makeUser } from './helper.js'

t.test('duplicate key on a compositeIndex is 409 CONFLICT with field names only', async (t) => {
  const app = await buildCoreApp(t)
  const alice = makeUser()
  const bob = makeUser()
  const payload = { firstName: 'A', lastName: 'B', email: 'same@example.com' }
  {
    const res = await app.inject({ method: 'POST', url: '/api/v1/contacts', headers: alice.headers, payload })
    t.equal(res.statusCode, 201, 'first create')
  }
  {
    const res = await app.inject({
      method: 'POST',
      url: '/api/v1/contacts',
      headers: alice.headers,
      payload: { ...payload, email: 'SAME@example.com' }
    })
    t.equal(res.statusCode, 409, 'same tenant, same e-mail (after lowercase)')
    t.same(res.json(), {
      error: {
        code: 'CONFLICT',
        message: 'a record with the same unique values already exists',
        details: { keys: ['email'] }
      }
    })
    t.notMatch(res.body, /same@example\.com/, 'no values in the answer')
  }
  {
    const res = await app.inject({ method: 'POST', url: '/api/v1/contacts', headers: bob.headers, payload })
    t.equal(res.statusCode, 201, 'uniqueness is per tenant')
  }
  {
    const other = await app.inject({
      method: 'POST',
      url: '/api/v1/contacts',
      headers: alice.headers,
      payload: { ...payload, email: 'other@example.com' }
    })
    const res = await app.inject({
      method: 'PUT',
      url: `/api/v1/contacts/${other.json()._id}`,
      headers: alice.headers,
      payload: { email: 'same@example.com' }
    })
    t.equal(res.statusCode, 409, 'update into a duplicate')
    t.same(res.json().error.details, { keys: ['email'] })
  }
  const indexes = await app.svc.db.collection('contacts').listIndexes().toArray()
  t.ok(
    indexes.some((i) => i.unique === true && JSON.stringify(i.key) === '{"userId":1,"email":1}'),
    'unique index created at start-up'
  )
})

t.test('errors thrown by hooks and custom code render in the envelope', async (t) => {
  const routes: Record<string, () => unknown> = {
    plainObject: () => {
      // eslint-disable-next-line no-throw-literal -- what is tested: hooks may throw a plain object
      throw { statusCode: 403, code: 'FORBIDDEN', message: 'no way', details: { field: 'x' } }
    },
    errorWithStatus: () => {
      throw Object.assign(new Error('taken'), { statusCode: 409 })
    },
    notFound: () => {
      throw Object.assign(new Error('gone'), { statusCode: 404, code: 'SOMETHING_ELSE' })
    },
    badRequest: () => {
      throw Object.assign(new Error('bad'), { statusCode: 400, details: { field: 'a' } })
    },
    typed: () => {
      throw new ForbiddenError('typed', { field: 'secret' })
    },
    plain: () => {
      throw new Error('database password is hunter2')
    },
    teapot: () => {
      throw Object.assign(new Error('boom'), { statusCode: 503 })
    }
  }
  // A bare app (not buildCoreApp): routes must be added before ready.
  const { db } = await getTestDb(t)
  const app2 = Fastify()
  await app2.register(svcCore, { db, jwtSecret: 'x'.repeat(32), schemas: [], production: true })
  for (const [name, fn] of Object.entries(routes)) app2.get(`/t/${name}`, async () => fn())
  t.teardown(async () => await app2.close())
  const expect: Record<string, [number, unknown]> = {
    plainObject: [403, { error: { code: 'FORBIDDEN', message: 'no way', details: { field: 'x' } } }],
    errorWithStatus: [409, { error: { code: 'CONFLICT', message: 'taken' } }],
    notFound: [404, { error: { code: 'NOT_FOUND', message: 'gone' } }],
    badRequest: [400, { error: { code: 'VALIDATION', message: 'bad', details: { field: 'a' } } }],
    typed: [403, { error: { code: 'FORBIDDEN', message: 'typed', details: { field: 'secret' } } }],
    plain: [500, { error: { code: 'INTERNAL', message: 'internal server error' } }],
    teapot: [500, { error: { code: 'INTERNAL', message: 'internal server error' } }]
  }
  for (const [name, [status, body]] of Object.entries(expect)) {
    const res = await app2.inject({ method: 'GET', url: `/t/${name}` })
    t.equal(res.statusCode, status, name)
    t.same(res.json(), body, `${name} envelope`)
    t.notMatch(res.body, /hunter2|at .*\.ts/, 'no message or stack leak')
  }
  {
    const res = await app2.inject({ method: 'GET', url: '/nowhere' })
    t.equal(res.statusCode, 404)
    t.equal(res.json().error.code, 'NOT_FOUND', 'not-found handler uses the envelope')
  }
})

t.test('normalizeError is the shared status/code table', async (t) => {
  t.same(normalizeError(new ValidationError('x', { field: 'a' })), {
    statusCode: 400,
    body: { error: { code: 'VALIDATION', message: 'x', details: { field: 'a' } } }
  })
  t.equal(normalizeError(new NotFoundError()).statusCode, 404)
  t.equal(normalizeError(new ConflictError()).body.error.code, 'CONFLICT')
  t.same(
    normalizeError({ code: 11000, keyPattern: { userId: 1, email: 1 }, keyValue: { userId: 'u', email: 'e' } }).body
      .error.details,
    { keys: ['email'] }
  )
  t.same(
    normalizeError({
      code: 11000,
      message: 'E11000 duplicate key error collection: x index: y dup key: { userId: "u", name: "n" }'
    }).body.error.details,
    { keys: ['name'] }
  )
  t.equal(
    normalizeError(new Error('secret')).body.error.message,
    'secret',
    'outside production the message helps debugging'
  )
  t.equal(normalizeError(new Error('secret'), { production: true }).body.error.message, 'internal server error')
  t.equal(normalizeError('a string').statusCode, 500)
  // The driver's MaxTimeMSExpired and unreachable/unwritable database errors.
  const timeout = normalizeError(
    Object.assign(new Error('operation exceeded time limit'), {
      name: 'MongoServerError',
      code: 50,
      codeName: 'MaxTimeMSExpired'
    })
  )
  t.same(timeout, {
    statusCode: 503,
    body: {
      error: {
        code: 'QUERY_TIMEOUT',
        message: 'the query took longer than the service allows: narrow the filter or page size'
      }
    }
  })
  t.equal(
    normalizeError({ code: 50, message: 'a hook that happens to use 50' }).statusCode,
    500,
    'code 50 only from the driver'
  )
  for (const name of ['MongoServerSelectionError', 'MongoNetworkError', 'MongoNotConnectedError']) {
    const res = normalizeError(Object.assign(new Error('connect ECONNREFUSED 10.0.0.7:27017'), { name }))
    t.same(
      res,
      {
        statusCode: 503,
        body: { error: { code: 'SERVICE_UNAVAILABLE', message: 'the database is unavailable; retry shortly' } }
      },
      name
    )
  }
  t.equal(
    normalizeError(Object.assign(new Error('not primary'), { name: 'MongoServerError', code: 10107 })).body.error.code,
    'SERVICE_UNAVAILABLE',
    'NotWritablePrimary'
  )
  t.same(
    normalizeError({ statusCode: 503, code: 'SERVICE_UNAVAILABLE', message: 'under pressure' }),
    { statusCode: 503, body: { error: { code: 'SERVICE_UNAVAILABLE', message: 'under pressure' } } },
    'a 5xx table code keeps its status'
  )
  t.equal(
    normalizeError({ statusCode: 400, code: 'constructor', message: 'x' }).body.error.code,
    'VALIDATION',
    'a built-in name is not a code'
  )
  t.equal(
    normalizeError({ statusCode: 415, code: 'FST_ERR_CTP_INVALID_MEDIA_TYPE', message: 'Unsupported Media Type' }).body
      .error.code,
    'UNSUPPORTED_MEDIA_TYPE'
  )
})

t.test('existing duplicates stop start-up naming the schema and its compositeIndex', async (t) => {
  const { db } = await getTestDb(t)
  await db.collection('things').insertMany([
    { userId: 'u', code: 'a' },
    { userId: 'u', code: 'a' }
  ])
  const app = Fastify()
  t.teardown(async () => await app.close())
  await t.rejects(async () => {
    await app.register(svcCore, {
      db,
      jwtSecret: 'x'.repeat(32),
      schemas: [{ path: 'things', fields: [{ name: 'code', type: String }], compositeIndex: [{ userId: 1, code: 1 }] }]
    })
    await app.ready()
  }, /schemas\[0\]: compositeIndex\[0\]: cannot create the unique index/)
})
