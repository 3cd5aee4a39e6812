import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { join } from 'node:path'
import t from 'tap'
import Fastify, { type FastifyInstance } from 'fastify'
import { chromium, type Browser } from 'playwright-core'
import { registerUser, tokenUser } from '@svc/testkit'
import { createModel, openStore, svcAgent, type AgentOptions } from '../src/index.js'
import { startScriptedModel } from '../src/testing/index.js'
import { JWT_SECRET, createRecord, startService } from './helper.js'

// The chat page in Debian's headless Chromium. SCREENSHOTS=1 also writes the README's screenshots.
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
if (!existsSync(CHROMIUM)) {
  process.stderr.write(
    `\n!!! @svc/agent chat page browser test SKIPPED: no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH) !!!\n\n`
  )
  t.plan(0, `no Chromium at ${CHROMIUM} (set CHROMIUM_PATH)`)
  process.exit(0)
}
const SHOTS = join(import.meta.dirname, '..', 'docs')

const svc = await startService(t)
const model = await startScriptedModel('openai')
t.teardown(model.close)
const browser: Browser = await chromium.launch({
  executablePath: CHROMIUM,
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage']
})
t.teardown(async () => await browser.close())

async function listeningAgent (auth: AgentOptions['auth'], extra: Partial<AgentOptions> = {}): Promise<string> {
  const app: FastifyInstance = Fastify({ logger: false })
  await app.register(svcAgent, {
    ...extra,
    svcUrl: svc.url,
    auth,
    sessionSecret: 'page-test-session-secret-0123456789',
    cookieSecure: false,
    model: createModel({ provider: 'openai', url: model.url, model: 'scripted', retries: 0 })
  })
  t.teardown(async () => await app.close())
  await app.listen({ host: '127.0.0.1', port: 0 })
  return `http://127.0.0.1:${(app.server.address() as { port: number }).port}`
}

function scriptAnswer (): void {
  model.push(
    { text: 'Checking your contacts.', toolCalls: [{ name: 'list_contacts', args: { perPage: 10 } }] },
    {
      toolCalls: [
        {
          name: 'render_table',
          args: {
            columns: ['name', 'status'],
            rows: [
              ['Ada', 'customer'],
              ['Grace', 'lead'],
              ['Linus', 'lead']
            ]
          }
        },
        {
          name: 'render_chart',
          args: {
            spec: {
              title: 'Contacts by status',
              mark: 'bar',
              data: {
                values: [
                  { status: 'customer', count: 1 },
                  { status: 'lead', count: 2 }
                ]
              },
              encoding: { x: { field: 'status', type: 'nominal' }, y: { field: 'count', type: 'quantitative' } }
            }
          }
        }
      ]
    },
    { text: 'You have three contacts: one customer and two leads.' }
  )
}

t.test('a question, a streamed answer, a table and a chart', async (t) => {
  const user = tokenUser(JWT_SECRET)
  for (const [name, status] of [
    ['Ada', 'customer'],
    ['Grace', 'lead'],
    ['Linus', 'lead']
  ]) {
    await createRecord(svc, user.headers, 'contacts', { name, status })
  }
  const base = await listeningAgent({ mode: 'service', bearer: user.headers.authorization.slice(7) })
  const page = await browser.newPage({ viewport: { width: 1000, height: 800 } })
  const failures: string[] = []
  page.on('pageerror', (err) => failures.push(err.message))
  page.on('requestfailed', (req) => failures.push(`${req.url()} ${req.failure()?.errorText ?? ''}`))
  page.on('response', (res) => {
    if (res.status() >= 400) failures.push(`${res.url()} ${res.status()}`)
  })
  await page.goto(base)
  t.equal(await page.title(), 'Ask your data')
  scriptAnswer()
  await page.getByLabel('Your question').fill('Who are my contacts?')
  await page.getByRole('button', { name: 'Send' }).click()
  await page.locator('.assistant .text', { hasText: 'one customer and two leads' }).waitFor({ timeout: 20_000 })
  t.equal(await page.locator('.user .text').textContent(), 'Who are my contacts?')
  t.match(await page.locator('.assistant .text').textContent(), /^Checking your contacts\.\n\nYou have three contacts/)
  t.same(await page.locator('.tool summary').allTextContents(), [
    'Ran list_contacts',
    'Ran render_table',
    'Ran render_chart'
  ])
  t.same(
    await page
      .locator('.render table tbody tr')
      .evaluateAll((rows) => rows.map((r) => [...r.querySelectorAll('td')].map((c) => c.textContent))),
    [
      ['Ada', 'customer'],
      ['Grace', 'lead'],
      ['Linus', 'lead']
    ]
  )
  await page.locator('.render[role=figure] svg').waitFor({ timeout: 20_000 })
  t.equal(await page.locator('.render[role=figure]').getAttribute('aria-label'), 'Contacts by status')
  t.ok((await page.locator('.render svg .mark-rect path').count()) === 2, 'two bars drawn by vega-embed')
  t.same(failures, [], 'no script errors, no failed requests (everything served by the agent)')
  const shot = await page.screenshot({ fullPage: true })
  t.ok(shot.length > 10_000, 'a screenshot of the answer')

  await page.setViewportSize({ width: 390, height: 844 })
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)
  t.ok(overflow <= 0, `no horizontal scrolling at phone width (overflow ${overflow}px)`)
  if (process.env.SCREENSHOTS === '1') {
    mkdirSync(SHOTS, { recursive: true })
    await page.setViewportSize({ width: 1000, height: 800 })
    writeFileSync(join(SHOTS, 'chat-page.png'), await page.screenshot({ fullPage: true }))
    await page.setViewportSize({ width: 390, height: 844 })
    writeFileSync(join(SHOTS, 'chat-page-phone.png'), await page.screenshot({ fullPage: true }))
  }
  await page.close()
})

t.test('the link flow on localhost while the agent listens on 127.0.0.1, and the way back', async (t) => {
  const person = await registerUser(svc.app)
  await createRecord(svc, person.headers, 'contacts', { name: 'Linked-only', status: 'lead' })
  const listening = await listeningAgent({ mode: 'per-user' }, { store: await openStore('memory:') })
  const base = listening.replace('127.0.0.1', 'localhost')
  const page = await browser.newPage({ viewport: { width: 390, height: 844 } })
  await page.goto(base)
  t.ok(await page.locator('#hint').isVisible(), 'the empty page says what to ask')
  await page.getByRole('button', { name: 'Which collections can you see?' }).click()
  const link = page.getByRole('link', { name: 'link your account' })
  await link.waitFor()
  t.notOk(await page.locator('#hint').isVisible(), 'the hint gives way to the conversation')
  t.equal(
    await page.locator('.user .text').first().textContent(),
    'Which collections can you see?',
    'an example asks itself'
  )
  const href = await link.getAttribute('href')
  t.match(
    href,
    new RegExp(`^${base.replace(/\./g, '\\.')}/link/[A-Za-z0-9_-]+$`),
    'the link is on the name the page was opened on'
  )
  await page.goto(href as string)
  await page.getByLabel('Email').fill(person.user.email)
  await page.getByLabel('Password').fill(person.password)
  await page.getByRole('button', { name: 'Sign in and link' }).click()
  await page.getByRole('heading', { name: 'Account linked' }).waitFor()
  if (process.env.SCREENSHOTS === '1') {
    mkdirSync(SHOTS, { recursive: true })
    writeFileSync(join(SHOTS, 'link-page.png'), await page.screenshot())
  }
  await page.getByRole('link', { name: 'Back to the chat' }).click()
  await page.waitForURL(`${base}/`)
  model.push({ toolCalls: [{ name: 'list_contacts', args: {} }] }, { text: 'One contact: Linked-only.' })
  await page.getByLabel('Your question').fill('My contacts?')
  await page.getByRole('button', { name: 'Send' }).click()
  await page.locator('.assistant .text', { hasText: 'One contact: Linked-only.' }).waitFor({ timeout: 20_000 })
  t.equal(
    await page.locator('.tool summary').textContent(),
    'Ran list_contacts',
    'linked on localhost, chatting on localhost'
  )
  await page.close()
})

t.test("another site's page cannot sign the browser in (real Origin headers)", async (t) => {
  const attacker = await registerUser(svc.app)
  const base = await listeningAgent({ mode: 'per-user' }, { store: await openStore('memory:') })
  const res = await fetch(`${base}/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ message: 'hi' })
  })
  const linkUrl = ((await res.json()) as any).error.details.linkUrl
  // The attacker's page: another origin (another port) auto-posting its own credentials to the link.
  const evil = createServer((_req, out) => {
    out
      .writeHead(200, { 'content-type': 'text/html' })
      .end(
        `<form id="f" method="post" action="${linkUrl}"><input name="email" value="${attacker.user.email}"><input name="password" value="${attacker.password}"></form><script>document.getElementById('f').submit()</script>`
      )
  })
  await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', resolve))
  t.teardown(() => {
    evil.close()
  })
  const page = await browser.newPage()
  const answer = page.waitForResponse((r) => r.url() === linkUrl && r.request().method() === 'POST')
  await page.goto(`http://127.0.0.1:${(evil.address() as { port: number }).port}/`)
  const refused = await answer
  t.equal(refused.status(), 403, 'refused')
  t.notMatch(
    (await refused.allHeaders())['set-cookie'] ?? '',
    /svc_agent_session/,
    "no session cookie for the victim's browser"
  )
  await page.close()
})

t.test('markup the model puts in a table or a chart stays text; the chart has no action menu', async (t) => {
  const base = await listeningAgent({ mode: 'service', bearer: tokenUser(JWT_SECRET).headers.authorization.slice(7) })
  const page = await browser.newPage({ viewport: { width: 1000, height: 800 } })
  const dialogs: string[] = []
  page.on('dialog', (d) => {
    dialogs.push(d.message())
    void d.dismiss()
  })
  const evil = '<img src=x onerror="alert(1)"><script>alert(2)</script>'
  model.push(
    {
      toolCalls: [
        { name: 'render_table', args: { columns: [evil, 'b'], rows: [[evil, { html: evil }]] } },
        {
          name: 'render_chart',
          args: {
            spec: {
              title: evil,
              mark: 'bar',
              data: { values: [{ s: evil, n: 1 }] },
              encoding: { x: { field: 's', type: 'nominal' }, y: { field: 'n', type: 'quantitative' } }
            }
          }
        }
      ]
    },
    { text: evil }
  )
  await page.goto(base)
  await page.getByLabel('Your question').fill('show me')
  await page.getByRole('button', { name: 'Send' }).click()
  await page.locator('.render[role=figure] svg').waitFor({ timeout: 20_000 })
  await page.locator('.assistant .text', { hasText: '<script>' }).waitFor({ timeout: 20_000 })
  t.equal(await page.locator('.render table th').first().textContent(), evil, 'a header shows the markup as text')
  t.same(
    await page.locator('.render table tbody td').allTextContents(),
    [evil, JSON.stringify({ html: evil })],
    'cells show it as text'
  )
  t.equal(await page.locator('#log img').count(), 0, 'no element was made of it')
  t.equal(await page.locator('.vega-actions, details.vega-embed').count(), 0, 'no action menu on the chart')
  t.same(dialogs, [], 'no script ran')
  await page.close()
})

t.test('assets', async (t) => {
  const base = await listeningAgent({ mode: 'service', bearer: tokenUser(JWT_SECRET).headers.authorization.slice(7) })
  const res = await fetch(`${base}/assets/nothing.js`)
  t.equal(res.status, 404)
  const vega = await fetch(`${base}/assets/vega-embed.min.js`)
  t.equal(vega.status, 200)
  t.match(vega.headers.get('content-type'), /javascript/)
  const html = await fetch(base)
  t.match(html.headers.get('content-security-policy'), /script-src 'self'/)
})
