// The generated CRM client bundled (esbuild) into a page served by the live server itself (same
// origin, so no CORS setup) and run in headless Chromium through playwright-core.
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { build } from 'esbuild'
import { chromium } from 'playwright-core'
import { signToken } from '@svc/testkit'
import realtime from '@svc/realtime'
import { crm } from './fixtures/schemas.js'
import { email, JWT_SECRET, startServer } from './helper.js'

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
const missing = !existsSync(CHROMIUM)
// Loud on purpose: a skipped browser run must not pass for a green one unnoticed.
if (missing) {
  process.stderr.write(
    `\n!!! @svc/client browser test SKIPPED: no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)\n\n`
  )
}

t.test(
  'the generated client in headless Chromium',
  { skip: missing ? `no Chromium at ${CHROMIUM}` : false },
  async (t) => {
    const bundle = await build({
      entryPoints: [fileURLToPath(new URL('browser/entry.ts', import.meta.url))],
      bundle: true,
      write: false,
      format: 'esm',
      platform: 'browser',
      target: 'es2022',
      conditions: ['@svc/source'],
      logLevel: 'silent'
    })
    const js = bundle.outputFiles[0].text
    t.notMatch(js, /from ["']node:|require\(["']node:/, 'the bundle needs nothing from Node')
    const server = await startServer(t, crm, (app) => {
      void app.register(realtime)
      app.get(
        '/__browser-test',
        async (_req, reply) =>
          await reply
            .type('text/html')
            .send(
              '<!doctype html><meta charset="utf-8"><title>svc client</title><script type="module" src="/__browser-test/bundle.js"></script>'
            )
      )
      app.get('/__browser-test/bundle.js', async (_req, reply) => await reply.type('text/javascript').send(js))
    })
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync'
      ]
    })
    t.teardown(async () => await browser.close())
    const page = await browser.newPage()
    const address = email()
    await page.exposeFunction('svcExpired', (userId: string) =>
      signToken({ user_id: userId, email: address, roles: ['user'] }, JWT_SECRET, { expiresIn: -10 })
    )
    await page.addInitScript((e) => {
      ;(window as unknown as { svcEmail: string }).svcEmail = e
    }, address)
    await page.goto(`${server.url}/__browser-test`)
    await page.waitForFunction(
      () => {
        const w = window as unknown as { svcResult?: unknown; svcError?: string }
        return w.svcResult !== undefined || w.svcError !== undefined
      },
      undefined,
      { timeout: 60_000 }
    )
    const { svcResult, svcError } = await page.evaluate(() => {
      const w = window as unknown as { svcResult?: Array<[string, unknown]>; svcError?: string }
      return { svcResult: w.svcResult, svcError: w.svcError }
    })
    t.equal(svcError, undefined, 'the scenario ran to its end')
    t.same(
      Object.fromEntries(svcResult ?? []),
      {
        register: 'string',
        'wrong password': '401 UNAUTHENTICATED +requestId',
        'idempotent replay': true,
        'key reused with another body': '409 CONFLICT +requestId',
        create: 'tim@w3.org',
        get: 'Tim Berners-Lee',
        update: 'Sir',
        list: ['Browserco'],
        search: 1,
        bulkUpdate: { numAffected: 1 },
        relation: 'Browserco',
        delete: 'string',
        'get deleted': '404 NOT_FOUND +requestId',
        restore: 'live',
        history: ['restore', 'delete', 'update', 'update', 'create'],
        'undeclared field': '400 VALIDATION +requestId',
        'field ACL': '403 FORBIDDEN +requestId',
        transition: 'submitted',
        'illegal transition': '400 INVALID_TRANSITION +requestId',
        aggregation: [{ _id: 'won', count: 1, total: 2000 }],
        upload: ['image/png', 'tim.png', 97],
        download: 97,
        'refused upload': '400 VALIDATION +requestId',
        deleteFile: { ok: true },
        'fetch empty file': '404 NOT_FOUND +requestId',
        subscribe: ['companies.created Live co'],
        refreshed: 1,
        rotated: true,
        'refresh refused': '401 UNAUTHENTICATED +requestId',
        'store cleared': null,
        aborted: 'AbortError',
        'no server': '0 NETWORK'
      },
      'every check of the scenario, in the browser'
    )
  }
)
