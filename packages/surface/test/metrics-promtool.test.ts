import t from 'tap'
import { spawnSync } from 'node:child_process'
import { buildApp, bearer, testDb } from './helper.js'
import { RENAMED_RUNTIME_GAUGES } from '../src/metrics/runtime-metrics.js'

// Prometheus's own linter (a Go binary, not on npm): `.ci/run` extracts it from Debian's
// `prometheus` package; PROMTOOL may point at another copy.
const PROMTOOL = process.env.PROMTOOL ?? 'promtool'
const found = spawnSync(PROMTOOL, ['--version'], { encoding: 'utf8' })
const missing = found.error !== undefined || found.status !== 0

const sample = (text: string, name: string): number[] =>
  [...text.matchAll(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'gm'))].map((m) => Number(m[1]))

t.test(
  '/_metrics passes `promtool check metrics`',
  { skip: missing ? `!!! promtool not found (${PROMTOOL}): SKIPPED !!!` : false },
  async (t) => {
    const app = await buildApp(t, await testDb(t), { metrics: {}, rateLimit: false })
    // Series of every kind: a 201, a 200, a 404 of a template, an unmatched 404, a 401.
    const created = await app.inject({
      method: 'POST',
      url: '/api/v1/notes',
      headers: bearer('65f0000000000000000000a1'),
      payload: { title: 'n' }
    })
    t.equal(created.statusCode, 201)
    await app.inject({
      method: 'GET',
      url: `/api/v1/notes/${String(created.json()._id)}`,
      headers: bearer('65f0000000000000000000a1')
    })
    await app.inject({ method: 'GET', url: '/nowhere' })
    await app.inject({ method: 'GET', url: '/api/v1/notes' })
    const text = (await app.inject({ method: 'GET', url: '/_metrics' })).body

    const lint = spawnSync(PROMTOOL, ['check', 'metrics'], { input: text, encoding: 'utf8' })
    t.equal(lint.status, 0, `promtool exit code (stdout: ${lint.stdout.trim()} stderr: ${lint.stderr.trim()})`)
    t.equal(`${lint.stdout}${lint.stderr}`.trim(), '', 'no lint finding at all')

    // The same linter does fail on prom-client's original names (the check can fail).
    const before = spawnSync(PROMTOOL, ['check', 'metrics'], {
      input:
        '# HELP nodejs_active_handles_total Total number of active handles.\n# TYPE nodejs_active_handles_total gauge\nnodejs_active_handles_total 3\n',
      encoding: 'utf8'
    })
    t.not(before.status, 0, 'a gauge named *_total is refused')
  }
)

t.test('the renamed runtime gauges keep their values', async (t) => {
  const app = await buildApp(t, await testDb(t), { metrics: {}, rateLimit: false })
  const text = (await app.inject({ method: 'GET', url: '/_metrics' })).body
  for (const [from, to] of Object.entries(RENAMED_RUNTIME_GAUGES)) {
    t.same(sample(text, from), [], `${from} is gone`)
    t.match(text, new RegExp(`# TYPE ${to} gauge\\n`), `${to} is a gauge`)
  }
  const [handles] = sample(text, 'nodejs_active_handles_all')
  t.ok(handles >= 1, 'at least the server socket is a live handle')
  const byType = sample(text, 'nodejs_active_handles').reduce((a, b) => a + b, 0)
  t.equal(handles, byType, 'the total is the sum of nodejs_active_handles{type}')
  t.ok(sample(text, 'nodejs_active_resources_all')[0] >= 1, 'active resources total')
  t.equal(sample(text, 'nodejs_active_requests_all').length, 1, 'active requests total')
})
