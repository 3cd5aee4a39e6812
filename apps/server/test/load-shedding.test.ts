import t, { type Test } from 'tap'
import { getTestDb } from '@svc/testkit'
import { buildServer } from '../src/build-server.js'
import { loadConfig } from '../src/config.js'
import { workspace } from './fixtures/workspace.js'

// LOAD_SHED_EVENT_LOOP_DELAY_MS reaches @svc/surface's load shedding: a lagging event loop sheds
// /healthz with 503 at a low bound, never with 0.
async function serverWith (t: Test, delayMs: string) {
  const { db } = await getTestDb(t)
  const { config } = loadConfig({
    NODE_ENV: 'test',
    JWT_SECRET: 'shed-test-secret-0123456789abcdef',
    SCHEMA_DIR: workspace().schemaDir,
    LOAD_SHED_EVENT_LOOP_DELAY_MS: delayMs
  })
  if (config == null) throw new Error('test config invalid')
  t.equal(config.loadShedEventLoopDelayMs, Number(delayMs))
  const app = await buildServer(config, { db, logger: false })
  t.teardown(async () => await app.close())
  return app
}

/** Blocks the event loop for `ms`, a few times, letting under-pressure's timers sample in between. */
async function lag (ms: number, times: number, until: () => boolean): Promise<void> {
  for (let i = 0; i < times && !until(); i++) {
    const end = Date.now() + ms
    while (Date.now() < end);
    await new Promise((resolve) => setTimeout(resolve, 30))
  }
}

t.test('a 5 ms bound: a 150 ms stall sheds /healthz with 503 and Retry-After', async (t) => {
  const app = await serverWith(t, '5')
  await lag(150, 40, () => app.isUnderPressure())
  const res = await app.inject({ method: 'GET', url: '/healthz' })
  t.equal(res.statusCode, 503)
  t.match(res.json(), { error: { code: 'SERVICE_UNAVAILABLE', message: /overloaded \(eventLoopDelay\)/ } })
  t.equal(res.headers['retry-after'], '10')
})

t.test('0: the same stalls shed nothing', async (t) => {
  const app = await serverWith(t, '0')
  await lag(150, 10, () => app.isUnderPressure())
  t.equal(app.isUnderPressure(), false)
  t.equal((await app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200)
})
