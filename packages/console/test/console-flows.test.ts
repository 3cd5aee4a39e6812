import { mkdirSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { join } from 'node:path'
import t from 'tap'
import { registerUser } from '@svc/testkit'
import { chromiumOrSkip, startConsoleServer } from './helper.js'
import { axeViolations, launch, png, signIn, watch } from './browser.js'
import { checkRequests } from './public-routes.js'

// An operator's tour in headless Chromium, one page throughout: sign in, browse, filter, edit
// (refused, then saved), transition, delete and restore, history, files, a chart, webhooks.
// Then: every request was a public API call with the person's own token, axe finds nothing,
// and the phone width does not scroll sideways. SCREENSHOTS=1 writes the README's pictures.
if (!chromiumOrSkip(t, 'browser flows')) process.exit(0)
const SHOTS = join(import.meta.dirname, '..', 'docs')

const server = await startConsoleServer(t)
const base = server.url
const ada = await registerUser(server.app, { first_name: 'Ada', last_name: 'Lovelace' })
const inject = async (method: 'POST' | 'PUT', url: string, payload: unknown): Promise<any> => {
  const res = await server.app.inject({ method, url, headers: ada.headers, payload: payload as any })
  if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`)
  return res.json()
}
const acme = await inject('POST', '/api/v1/companies', { name: 'Acme', industry: 'software' })
const grace = await inject('POST', '/api/v1/contacts', {
  firstName: 'Grace',
  lastName: 'Hopper',
  email: 'grace@example.com',
  companyId: acme._id,
  status: 'customer',
  tags: ['vip']
})
const deals: Record<string, any> = {}
for (const [title, amount, stage] of [
  ['Pilot', 1200, 'qualified'],
  ['Rollout', 54000, 'proposal'],
  ['Renewal', 8000, 'won'],
  ['Expansion', 22000, 'won']
] as const) {
  deals[title] = await inject('POST', '/api/v1/deals', {
    title,
    amount,
    stage,
    companyId: acme._id,
    contactId: grace._id,
    lineItems: [{ sku: 'SEAT', quantity: 5, unitPrice: amount / 5 }]
  })
}

const received: string[] = []
const receiver = createServer((req, res) => {
  req.resume()
  req.on('end', () => {
    received.push(String(req.headers['x-svc-event']))
    res.end('ok')
  })
})
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
t.teardown(() => {
  receiver.close()
})
const receiverUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`

const browser = await launch(t)
const page = await browser.newPage({ viewport: { width: 1200, height: 900 } })
const seen = watch(page)
const axe: Record<string, string[]> = {}
const shoot = async (name: string): Promise<void> => {
  if (process.env.SCREENSHOTS !== '1') return
  mkdirSync(SHOTS, { recursive: true })
  writeFileSync(join(SHOTS, `${name}.png`), await page.screenshot({ fullPage: true }))
}
const rows = page.locator('main table tbody tr')
const rowLabels = async (): Promise<string[]> => await page.locator('main table tbody th[scope=row]').allTextContents()

t.test('sign in: a wrong password is refused, the right one opens the console', async (t) => {
  await page.goto(`${base}/console/data/deals`)
  axe['sign-in'] = await axeViolations(page)
  await page.getByLabel('Email').fill(ada.user.email)
  await page.getByLabel('Password').fill('not the password')
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.getByRole('alert').filter({ hasText: 'Sign-in failed' }).waitFor()
  t.match(await page.getByRole('alert').textContent(), /UNAUTHENTICATED/)
  await signIn(page, base, ada.user.email, ada.password, '/console/data/deals')
  t.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Deals', 'lands on the page asked for')
  t.match(await page.locator('.who').textContent(), ada.user.email)
  t.equal(await page.evaluate(() => Object.keys(localStorage).length), 0, 'nothing in localStorage')
  t.same(
    await page.evaluate(() => Object.keys(sessionStorage)),
    ['svc-console.refreshToken'],
    'only the refresh token, in this tab'
  )
})

t.test('browse, sort, filter, search, include', async (t) => {
  await page.getByRole('navigation', { name: 'Schemas' }).getByRole('link', { name: 'Deals' }).click()
  await rows.first().waitFor()
  t.same((await rowLabels()).sort(), ['Expansion', 'Pilot', 'Renewal', 'Rollout'])
  await page.getByRole('button', { name: /^Amount/ }).click()
  await page.waitForURL(/__sort=amount%3Aasc/)
  await page.waitForFunction(() => document.querySelector('main tbody th')?.textContent === 'Pilot')
  t.same(await rowLabels(), ['Pilot', 'Renewal', 'Expansion', 'Rollout'], 'ascending amount')
  t.equal(await page.locator('th[aria-sort=ascending]').count(), 1)

  await page.getByText('Filters', { exact: true }).click()
  await page.getByRole('button', { name: 'Add filter' }).click()
  await page.getByLabel('Field 1').selectOption('amount')
  await page.getByLabel('Operator 1').selectOption('gte')
  await page.getByLabel('Value 1').fill('10000')
  await page.getByRole('button', { name: 'Apply filters' }).click()
  await page.waitForURL(/amount=%7B%22%24gte%22%3A10000%7D/)
  await page.waitForFunction(() => document.querySelectorAll('main tbody tr').length === 2)
  t.same(await rowLabels(), ['Expansion', 'Rollout'], 'amount ≥ 10000, still sorted')
  axe['table-filtered'] = await axeViolations(page)
  await shoot('console-table')

  await page.goto(`${base}/console/data/deals?stage=won`)
  await page.waitForFunction(() => document.querySelectorAll('main tbody tr').length === 2)
  t.same((await rowLabels()).sort(), ['Expansion', 'Renewal'], 'an equality filter from the URL')
  await page.getByLabel('Search deals').fill('rollout')
  await page.getByRole('button', { name: 'Search' }).click()
  await page.waitForURL(/q=rollout/)
  await page.waitForFunction(() => document.querySelector('main .empty') !== null)
  t.pass('search and filter combine: no won deal is called rollout')
  await page.goto(`${base}/console/data/deals?q=rollout`)
  await page.waitForFunction(() => document.querySelectorAll('main tbody tr').length === 1)
  t.same(await rowLabels(), ['Rollout'])

  await page.getByText('View', { exact: true }).click()
  await page.getByLabel('Show company').check()
  await page.waitForURL(/__include=company/)
  await page.getByRole('link', { name: 'Acme' }).waitFor()
  await page.getByRole('link', { name: 'Acme' }).click()
  await page.getByRole('heading', { level: 1, name: 'Acme' }).waitFor()
  t.pass('a related record is one click away')
})

t.test('edit: the VALIDATION envelope shows at the field, then the change saves', async (t) => {
  await page.goto(`${base}/console/data/deals/${deals.Pilot._id}`)
  const amount = page.getByLabel('Amount')
  await amount.fill('-5')
  await page.getByRole('button', { name: 'Save changes' }).click()
  await page.getByRole('alert').filter({ hasText: 'The service refused these values' }).waitFor()
  t.match(await page.getByRole('alert').textContent(), /Amount: must be >= 0/)
  t.equal(await amount.getAttribute('aria-invalid'), 'true')
  t.equal(await page.locator('#field-amount-error').textContent(), 'must be >= 0', 'the message sits under the field')
  await amount.fill('1500')
  await page.getByRole('button', { name: 'Save changes' }).click()
  await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor()
  const row = page.locator('.history tr', { hasText: '1,500' }).first()
  await row.waitFor()
  t.same(
    await row.locator('td').allTextContents(),
    ['1,200', '1,500'],
    'the history shows the change as before and after'
  )
})

t.test('transitions: buttons from availableTransitions, INVALID_TRANSITION shown', async (t) => {
  await page.getByRole('button', { name: 'Move to submitted' }).click()
  await page.getByRole('button', { name: 'Move to approved' }).waitFor()
  t.equal(await page.locator('.states .badge').textContent(), 'submitted')
  t.ok(await page.getByRole('button', { name: 'Move to rejected' }).isVisible())
  // Someone else approves it meanwhile: the page still offers "rejected".
  await inject('PUT', `/api/v1/deals/${deals.Pilot._id}`, { approval: 'approved' })
  await page.getByRole('button', { name: 'Move to rejected' }).click()
  const alert = page.getByRole('alert').filter({ hasText: 'That move is not allowed' })
  await alert.waitFor()
  t.match(await alert.textContent(), /approval cannot move from 'approved' to 'rejected'.*INVALID_TRANSITION/s)
  axe.record = await axeViolations(page)
  await shoot('console-record')
})

t.test('delete, find it in the trash, restore', async (t) => {
  await page.goto(`${base}/console/data/deals/${deals.Renewal._id}`)
  await page.getByRole('button', { name: 'Delete…' }).click()
  await page.getByRole('button', { name: 'Delete record' }).click()
  await page
    .getByRole('status')
    .filter({ hasText: /^Deleted / })
    .waitFor()
  await page.goto(`${base}/console/data/deals`)
  await rows.first().waitFor()
  t.notOk((await rowLabels()).includes('Renewal'), 'gone from the list')
  await page.getByText('Filters', { exact: true }).click()
  await page.getByRole('button', { name: 'Add filter' }).click()
  t.notOk(
    (await page.getByLabel('Field 1').locator('option').allTextContents()).some((o) => /deleted/i.test(o)),
    'no deletedAt filter on a list of live records (it could match nothing)'
  )
  await page.goto(`${base}/console/data/deals?__includeDeleted=true`)
  await rows.first().waitFor()
  await page.getByText('Filters', { exact: true }).click()
  await page.getByRole('button', { name: 'Add filter' }).click()
  await page.getByLabel('Field 1').selectOption('deletedAt')
  await page.getByLabel('Operator 1').selectOption('gte')
  await page.getByLabel('Value 1').fill('2000-01-01T00:00')
  await page.getByRole('button', { name: 'Apply filters' }).click()
  await page.waitForURL(/deletedAt=/)
  await page.waitForFunction(() => document.querySelectorAll('main tbody tr').length === 1)
  t.same(await rowLabels(), ['Renewal'], 'with deleted records shown, a deletedAt filter finds the tombstone')
  await page.getByRole('link', { name: 'Trash' }).click()
  await page.getByRole('button', { name: 'Restore Renewal' }).waitFor()
  t.same(await rowLabels(), ['Renewal'], 'the trash lists the tombstone only')
  await page.getByRole('button', { name: 'Restore Renewal' }).click()
  await page.getByText('No deleted record.').waitFor()
  await page.goto(`${base}/console/data/deals/${deals.Renewal._id}`)
  await page.locator('.history li').nth(2).waitFor()
  t.match(
    await page.locator('.history > li > p').allTextContents(),
    [/restored it/, /deleted it/, /created it/],
    'history, newest first'
  )
  t.equal(await page.locator('p.notice.warn').count(), 0, 'live again')
})

t.test('files: upload, preview, a refused type', async (t) => {
  await page.goto(`${base}/console/data/contacts/${grace._id}`)
  await page
    .getByLabel('Upload a file')
    .setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('plain text, not an image') })
  await page.getByRole('button', { name: 'Upload', exact: true }).click()
  await page
    .getByRole('alert')
    .filter({ hasText: /VALIDATION/ })
    .waitFor()
  await page.getByLabel('Upload a file').setInputFiles({ name: 'grace.png', mimeType: 'image/png', buffer: png() })
  await page.getByRole('button', { name: 'Upload', exact: true }).click()
  const img = page.getByRole('img', { name: 'Avatar: grace.png' })
  await img.waitFor()
  await page.waitForFunction(
    () => (document.querySelector('img.preview') as HTMLImageElement | null)?.naturalWidth === 4
  )
  t.pass('the image preview loads (4×4 PNG)')
  t.ok(await page.getByRole('button', { name: 'Download' }).isVisible())
  t.ok(await page.getByLabel('Replace the file').isVisible())
})

t.test('an aggregation as a table and a Vega-Lite chart', async (t) => {
  await page.goto(`${base}/console/data/deals`)
  await page.getByRole('link', { name: 'By stage' }).click()
  await page.locator('figure svg .mark-rect path').first().waitFor({ timeout: 30_000 })
  t.equal(await page.locator('figure svg .mark-rect path').count(), 3, 'one bar per stage')
  t.same(await page.locator('main table tbody tr td:first-child').allTextContents(), ['proposal', 'won', 'qualified'])
  await page.getByLabel('Min amount').fill('10000')
  await page.getByRole('button', { name: 'Run' }).click()
  await page.waitForURL(/minAmount=10000/)
  await page.waitForFunction(() => document.querySelectorAll('main table tbody tr').length === 2)
  t.same(await page.locator('main table tbody tr td:first-child').allTextContents(), ['proposal', 'won'])
  axe.aggregation = await axeViolations(page)
  await shoot('console-chart')
})

t.test('webhooks: subscribe, test, pause and re-enable, deliveries', async (t) => {
  await page.getByRole('link', { name: 'Webhooks' }).click()
  await page.getByLabel('Receiver URL').fill(receiverUrl)
  await page.getByLabel(/^Events/).fill('deals.*')
  await page.getByRole('button', { name: 'Subscribe' }).click()
  await page.getByText('Keep this signing secret now').waitFor()
  t.match(await page.locator('code.secret').textContent(), /^[0-9a-f]{64}$/)
  await page.getByRole('link', { name: 'Open the subscription' }).click()
  await page.getByRole('button', { name: 'Send a test event' }).click()
  await page.getByText('A signed webhook.test event is on its way.').waitFor()
  // Each refresh's answer is awaited: a click while one is on its way drops the earlier answer,
  // so on a slow machine clicking on a timer alone could never show one.
  for (let i = 0; i < 60 && (await page.locator('main table tbody tr').count()) === 0; i++) {
    await page.waitForTimeout(250)
    await Promise.all([
      page.waitForResponse((r) => r.url().includes('/deliveries')),
      page.getByRole('button', { name: 'Refresh' }).click()
    ])
  }
  t.match(
    await page.locator('main table tbody tr').first().textContent(),
    /webhook\.test/,
    'the delivery attempt is listed'
  )
  t.ok(received.includes('webhook.test'), 'and it reached the receiver')
  await page.getByRole('button', { name: 'Pause' }).click()
  await page.locator('dl.meta .badge.warn').waitFor()
  await page.getByRole('button', { name: 'Re-enable' }).click()
  await page.getByText(/^Re-enabled/).waitFor()
  await page.locator('dl.meta .badge.ok', { hasText: 'active' }).waitFor()
  t.pass('active again')
  axe.webhook = await axeViolations(page)
})

t.test("every request was a public API call with the signed-in person's token", async (t) => {
  const report = await checkRequests(server, seen.requests, ada.user._id)
  t.same(report.unknown, [], "no request outside the public API and the console's own files")
  t.same(report.foreignBearer, [], "API calls carry the person's own bearer")
  t.same(report.clientIds, [], 'never an api client id')
  t.ok(report.apiCalls > 20, `${report.apiCalls} API calls checked`)
  t.ok(report.streams > 0, `${report.streams} realtime streams opened with a ticket, no bearer in a URL`)
  t.same(seen.problems, [], 'no script error, no CSP violation')
})

t.test('axe-core finds no violation', async (t) => {
  await page.goto(`${base}/console/`)
  await page.getByRole('heading', { name: 'Schemas' }).waitFor()
  axe.home = await axeViolations(page)
  await page.goto(`${base}/console/data/deals/new`)
  await page.getByRole('button', { name: 'Create' }).click()
  await page.getByRole('alert').first().waitFor()
  axe['new-record-errors'] = await axeViolations(page)
  for (const [name, v] of Object.entries(axe)) t.same(v, [], `${name}: no violation`)
})

t.test('at 390 px: no sideways scrolling', async (t) => {
  await page.setViewportSize({ width: 390, height: 844 })
  for (const path of [
    '/console/data/deals',
    `/console/data/deals/${deals.Pilot._id}`,
    '/console/data/deals/aggregations/byStage',
    '/console/webhooks'
  ]) {
    await page.goto(`${base}${path}`)
    await page.locator('main h1').waitFor()
    // The table holds its realtime stream open: "network idle" never comes there; its rows do.
    if (path === '/console/data/deals') {
      await rows.first().waitFor()
      await page.locator('.badge', { hasText: 'Live' }).waitFor()
    } else await page.waitForLoadState('networkidle')
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)
    t.ok(overflow <= 0, `${path}: overflow ${overflow}px`)
  }
  await page.goto(`${base}/console/data/deals/${deals.Pilot._id}`)
  await page.locator('.history li').first().waitFor()
  await shoot('console-record-phone')
  await page.goto(`${base}/console/data/deals`)
  await rows.first().waitFor()
  await shoot('console-table-phone')
})
