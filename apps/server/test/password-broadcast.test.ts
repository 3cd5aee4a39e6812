import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { getTestDb, redisAnswers, TEST_REDIS_URL } from '@svc/testkit'
import { buildServer } from '../src/build-server.js'
import { loadConfig } from '../src/config.js'
import { loggerOptions } from '../src/logger.js'
import { workspace } from './fixtures/workspace.js'

// With REDIS_URL two replicas (hosts) on one database: a reset on one is heard by the other over
// Redis pub/sub, so it refuses a token issued before the reset at once, not after its 10 s cache.
const redisUp = await redisAnswers()
if (!redisUp) {
  console.error(`\n!!! SKIPPED: no Redis answers at ${TEST_REDIS_URL}: the password broadcast test did not run !!!\n`)
}

t.test(
  'a reset on one replica: the other refuses older tokens at once (Redis)',
  { skip: redisUp ? false : `no Redis answers at ${TEST_REDIS_URL}` },
  async (t) => {
    const { config } = loadConfig({
      NODE_ENV: 'test',
      JWT_SECRET: 'broadcast-test-secret-0123456789',
      SCHEMA_DIR: workspace().schemaDir,
      REDIS_URL: TEST_REDIS_URL
    })
    if (config == null) throw new Error('test config invalid')
    const { db } = await getTestDb(t)
    const mails: Array<{ to: string; text: string }> = []
    const replica = async (): Promise<FastifyInstance> => {
      const logger = {
        ...(loggerOptions(config) as object),
        stream: {
          write: (l: string) => {
            const m = JSON.parse(l).mail
            if (m != null) mails.push(m)
          }
        }
      }
      const app = await buildServer(config, { db, logger })
      t.teardown(async () => await app.close())
      await app.ready()
      return app
    }
    const [a, b] = [await replica(), await replica()]
    const email = 'broadcast@example.test'
    const reg = await a.inject({
      method: 'POST',
      url: '/register',
      payload: { first_name: 'B', last_name: 'C', email, password: 'first-password-123' }
    })
    t.equal(reg.statusCode, 201)
    const old = { authorization: `Bearer ${String(reg.json().accessToken)}` }
    t.equal(
      (await b.inject({ method: 'GET', url: '/api/v1/notes', headers: old })).statusCode,
      200,
      'B accepts (and caches) the token'
    )
    // `iat` is in whole seconds and a same-second token stays valid: step past the login's second.
    await new Promise((resolve) => setTimeout(resolve, 1100))
    t.equal((await a.inject({ method: 'POST', url: '/auth/forgot-password', payload: { email } })).statusCode, 202)
    // The mail goes out after the 202 (logged here: no SMTP_HOST).
    for (let i = 0; i < 300 && !mails.some((m) => m.to === email); i++) {
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
    const token = /token[^:]*: (\S+)/.exec(mails.find((m) => m.to === email)?.text ?? '')?.[1]
    t.equal(
      (
        await a.inject({
          method: 'POST',
          url: '/auth/reset-password',
          payload: { token, password: 'second-password-456' }
        })
      ).statusCode,
      200,
      'reset on A'
    )
    // The publish resolved before A answered; B's subscriber receives it within Redis' round trip.
    let status = 200
    for (let i = 0; i < 100 && status === 200; i++) {
      status = (await b.inject({ method: 'GET', url: '/api/v1/notes', headers: old })).statusCode
      if (status === 200) await new Promise((resolve) => setTimeout(resolve, 10))
    }
    t.equal(status, 401, 'B refuses the old token well within its 10 s cache')
  }
)
