import t from 'tap'
import Fastify from 'fastify'
import svcCore from '@svc/core'
import { getTestDb } from '@svc/testkit'
import webhooks, { parseRetrySchedule, DEFAULT_RETRY_SCHEDULE } from '../src/index.js'
import { JWT_SECRET, schemas } from './helper.js'

const { db } = await getTestDb(t)

t.test('WEBHOOK_RETRY_SCHEDULE parsing', async (t) => {
  t.same(DEFAULT_RETRY_SCHEDULE, [1, 5, 30, 300, 3600], 'spec default')
  t.same(parseRetrySchedule('1, 2,0.5'), [1, 2, 0.5])
  for (const bad of ['', '1,,2', 'a', '-1', '1,Infinity']) {
    t.throws(() => parseRetrySchedule(bad), /WEBHOOK_RETRY_SCHEDULE/, `'${bad}'`)
  }
})

t.test('bad options fail at boot with a clear message', async (t) => {
  const cases: Array<[Record<string, unknown>, RegExp]> = [
    [{ retrySchedule: [1, -1] }, /retrySchedule/],
    [{ retrySchedule: 'fast' }, /retrySchedule/],
    [{ timeoutMs: 0 }, /timeoutMs/],
    [{ concurrency: 1.5 }, /concurrency/],
    [{ leaseMs: 5000, timeoutMs: 10000 }, /leaseMs must exceed timeoutMs/]
  ]
  for (const [opts, re] of cases) {
    const app = Fastify({ logger: false })
    await app.register(svcCore, { db, jwtSecret: JWT_SECRET, schemas: schemas() })
    await t.rejects(
      async () => {
        await app.register(webhooks, opts as never)
        await app.ready()
      },
      re,
      JSON.stringify(opts)
    )
    await app.close()
  }
})

t.test('a declared endpoint without a secret or with a bad url fails at boot', async (t) => {
  for (const ep of [{ url: 'http://x.example/' }, { url: 'ftp://x.example/', secret: 's' }]) {
    const app = Fastify({ logger: false })
    await app.register(svcCore, { db, jwtSecret: JWT_SECRET, schemas: schemas({ webhooks: { endpoints: [ep] } }) })
    await t.rejects(async () => {
      await app.register(webhooks)
      await app.ready()
    }, /webhooks\.endpoints\[0\] needs an http\(s\) url and a secret/)
    await app.close()
  }
})

t.test('without core the plugin refuses to load', async (t) => {
  const app = Fastify({ logger: false })
  await t.rejects(async () => {
    await app.register(webhooks)
    await app.ready()
  }, /@svc\/core/)
  await app.close()
})

t.test('worker: false serves the routes and delivers nothing', async (t) => {
  const app = Fastify({ logger: false })
  await app.register(svcCore, { db, jwtSecret: JWT_SECRET, schemas: schemas() })
  await app.register(webhooks, { worker: false })
  await app.ready()
  t.equal(app.svc.features.webhooks, true)
  t.ok(app.svc.webhooks, 'app.svc.webhooks is the service for other surfaces')
  await app.close()
})
