import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import Fastify, { type FastifyInstance } from 'fastify'
import svcCore from '@svc/core'
import { getTestDb } from '@svc/testkit'
import svcConsole, { PAGE_CSP, type ConsoleOptions } from '../src/index.js'
import { JWT_SECRET, SCHEMA_DIR } from './helper.js'

// The plugin alone, through app.inject(): the page under its prefix, the built assets, refusals.
const APP_DIR = join(import.meta.dirname, '..', 'dist', 'app')

async function appWith (
  t: { teardown: (fn: () => unknown) => void },
  opts: ConsoleOptions = {}
): Promise<FastifyInstance> {
  const { db } = await getTestDb(t)
  const app = Fastify({ logger: false })
  await app.register(svcCore, { db, schemaDir: SCHEMA_DIR, jwtSecret: JWT_SECRET })
  await app.register(svcConsole, opts)
  t.teardown(async () => await app.close())
  await app.ready()
  return app
}

t.test('the page, its client routes and its assets', async (t) => {
  const app = await appWith(t)
  {
    const res = await app.inject('/console')
    t.equal(res.statusCode, 302, 'GET /console')
    t.equal(res.headers.location, '/console/')
  }
  for (const url of [
    '/console/',
    '/console/data/deals',
    '/console/data/deals/65f000000000000000000001?x=1',
    '/console/webhooks'
  ]) {
    const res = await app.inject(url)
    t.equal(res.statusCode, 200, `GET ${url}`)
    t.match(res.headers['content-type'], /^text\/html/)
    t.equal(res.headers['content-security-policy'], PAGE_CSP, `${url}: the page's own policy`)
    t.equal(res.headers['cache-control'], 'no-cache')
    t.match(res.body, '<base href="/console/">', 'assets and routes resolve under the prefix')
    t.match(res.body, /<script type="module" crossorigin src="\.\/assets\/index-[\w-]+\.js"><\/script>/)
  }
  t.notMatch(PAGE_CSP, /unsafe-eval|unsafe-inline/, 'no eval, no inline script or style')

  const assets = readdirSync(join(APP_DIR, 'assets'))
  const main = assets.find((f) => /^index-.*\.js$/.test(f))!
  {
    const res = await app.inject({ url: `/console/assets/${main}`, headers: { 'accept-encoding': 'br, gzip' } })
    t.equal(res.statusCode, 200, 'the entry script')
    t.match(res.headers['content-type'], /javascript/)
    t.equal(res.headers['content-encoding'], 'br', 'served precompressed')
    t.match(res.headers['cache-control'], /immutable/, 'hashed names are cached for good')
  }
  {
    const res = await app.inject({ url: `/console/assets/${main}` })
    t.equal(res.headers['content-encoding'], undefined, 'plain for a client that asks for no encoding')
  }
  t.ok(
    assets.some((f) => /^vega-chart-.*\.js$/.test(f)),
    'the chart libraries are a chunk of their own (loaded on demand)'
  )
  for (const url of ['/console/assets/nothing.js', '/console/assets/sub/x.js', '/console/assets/index.html']) {
    const res = await app.inject(url)
    t.equal(res.statusCode, 404, `GET ${url}`)
    t.equal(res.json().error.code, 'NOT_FOUND')
  }
  t.equal((await app.inject('/consoleX')).statusCode, 404, 'only the prefix and below')
})

t.test('another prefix', async (t) => {
  const app = await appWith(t, { prefix: '/admin/data/' })
  const res = await app.inject('/admin/data/data/deals')
  t.equal(res.statusCode, 200)
  t.match(res.body, '<base href="/admin/data/">')
  t.equal((await app.inject('/console/')).statusCode, 404)
})

t.test("the reset link of core's mails leads to the console's reset form when asked", async (t) => {
  const off = await appWith(t)
  t.equal((await off.inject('/reset-password?token=abc')).statusCode, 404, 'off by default')
  const on = await appWith(t, { resetPasswordPage: true })
  const res = await on.inject('/reset-password?token=abc%2Bdef&other=1')
  t.equal(res.statusCode, 302)
  t.equal(res.headers.location, '/console/reset-password?token=abc%2Bdef', 'the token only')
  t.equal((await on.inject('/reset-password')).headers.location, '/console/reset-password')
})

t.test('refusals at registration', async (t) => {
  for (const prefix of ['/', '', '/con sole', '/a?b']) {
    await t.rejects(
      appWith(t, { prefix }),
      { message: /must be a non-root URL path/ },
      `prefix ${JSON.stringify(prefix)}`
    )
  }
  const empty = mkdtempSync(join(tmpdir(), 'svc-console-empty-'))
  await t.rejects(appWith(t, { appDir: empty }), { message: /no built app in .* \(run `npm run build`/ })
  const noHead = mkdtempSync(join(tmpdir(), 'svc-console-nohead-'))
  writeFileSync(join(noHead, 'index.html'), '<html></html>')
  await t.rejects(appWith(t, { appDir: noHead }), { message: /has no <head>/ })
  const bare = Fastify({ logger: false })
  t.teardown(async () => await bare.close())
  await t.rejects(
    async () => {
      await bare.register(svcConsole)
      await bare.ready()
    },
    { message: /@svc\/core/ },
    'needs @svc/core (the API it talks to)'
  )
})
