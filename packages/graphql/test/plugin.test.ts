import t from 'tap'
import Fastify from 'fastify'
import svcCore from '@svc/core'
import svcSoftDelete from '@svc/softdelete'
import { getTestDb } from '@svc/testkit'
import svcGraphql from '../src/index.js'
import { JWT_SECRET, buildApp, fails, makeUser } from './helper.js'

const boom = [
  {
    path: 'boom',
    fields: [{ name: 'n', type: Number }],
    hooks: {
      beforeCreate: () => {
        throw new Error('secret detail of a bug')
      }
    }
  }
]

t.test('an unexpected error is INTERNAL (500 without data), its message hidden in production', async (t) => {
  const user = makeUser()
  const { app: prod } = await buildApp(t, { schemas: boom, graphql: { production: true } })
  const hidden = await fails(prod, user.headers, 'mutation { boomCreateOne(record: { n: 1 }) { recordId } }')
  t.equal(hidden.code, 'INTERNAL')
  t.equal(hidden.message, 'internal server error')
  const { app: dev } = await buildApp(t, { schemas: boom })
  const shown = await fails(dev, user.headers, 'mutation { boomCreateOne(record: { n: 1 }) { recordId } }')
  t.equal(shown.message, 'secret detail of a bug', 'shown outside production')
})

t.test('registering soft delete after GraphQL stops start-up with a clear message', async (t) => {
  const { db } = await getTestDb(t)
  const app = Fastify({ logger: false })
  t.teardown(async () => await app.close())
  await app.register(svcCore, { db, jwtSecret: JWT_SECRET, schemas: boom })
  await app.register(svcGraphql)
  await app.register(svcSoftDelete, { sweepIntervalMs: 0 })
  await t.rejects(async () => {
    await app.ready()
  }, /register @svc\/softdelete before @svc\/graphql/)
})
