import { readFile } from 'node:fs/promises'
import t from 'tap'
import { registerUser } from '@svc/testkit'
import { chromiumOrSkip, startConsoleServer } from './helper.js'
import { launch, watch } from './browser.js'
import { checkRequests } from './public-routes.js'

// What the tour leaves out, in headless Chromium: signing in with the keyboard alone, an array
// of sub-documents edited in the form (add, fill, remove, each saved), and a private file
// downloaded through the signed link the API hands out.
if (!chromiumOrSkip(t, 'forms browser test')) process.exit(0)

const server = await startConsoleServer(t)
const base = server.url
const ada = await registerUser(server.app, { first_name: 'Ada', last_name: 'Lovelace' })
const deal = (
  await server.app.inject({
    method: 'POST',
    url: '/api/v1/deals',
    headers: ada.headers,
    payload: { title: 'Seats', amount: 1200, lineItems: [{ sku: 'SEAT', quantity: 5, unitPrice: 240 }] }
  })
).json() as { _id: string }
const stored = async (): Promise<any> =>
  (await server.app.inject({ url: `/api/v1/deals/${deal._id}`, headers: ada.headers })).json()
const items = async (): Promise<unknown[]> =>
  ((await stored()).lineItems as any[]).map((l) => [l.sku, l.quantity, l.unitPrice])

const browser = await launch(t)
const page = await browser.newPage({ viewport: { width: 1200, height: 900 }, acceptDownloads: true })
const seen = watch(page)

t.test('sign in with the keyboard alone', async (t) => {
  await page.goto(`${base}/console/data/deals/${deal._id}`)
  await page.getByLabel('Email').focus()
  await page.keyboard.type(ada.user.email)
  await page.keyboard.press('Tab')
  t.equal(await page.evaluate(() => document.activeElement?.id), 'password', 'Tab moves from email to password')
  await page.keyboard.type(ada.password)
  await page.keyboard.press('Enter')
  await page.getByRole('button', { name: 'Sign out' }).waitFor()
  await page.getByRole('heading', { level: 1, name: 'Seats' }).waitFor()
  t.pass('Enter signs in, on the page asked for')
})

t.test('an array of sub-documents: add one, fill it, save; remove one, save', async (t) => {
  await page.getByRole('button', { name: 'Add line items' }).click()
  const second = page.getByRole('group', { name: 'Line items 2', exact: true })
  await second.getByLabel('Sku').fill('SUPPORT')
  await second.getByLabel('Quantity').fill('2')
  await second.getByLabel('Unit price').fill('99.5')
  await page.getByRole('button', { name: 'Save changes' }).click()
  await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor()
  t.same(
    await items(),
    [
      ['SEAT', 5, 240],
      ['SUPPORT', 2, 99.5]
    ],
    'the new line item is stored'
  )
  await page.getByRole('button', { name: 'Remove line items 1' }).click()
  await page.getByRole('button', { name: 'Save changes' }).click()
  for (let i = 0; i < 100 && (await items()).length !== 1; i++) await page.waitForTimeout(100)
  t.same(await items(), [['SUPPORT', 2, 99.5]], 'the first one is removed')
})

t.test('a private file: upload, then download through its signed link', async (t) => {
  const pdf = Buffer.from('%PDF-1.4\n% svc console test\n1 0 obj << >> endobj\ntrailer << >>\n%%EOF\n')
  await page
    .getByLabel('Upload a file')
    .setInputFiles({ name: 'contract.pdf', mimeType: 'application/pdf', buffer: pdf })
  await page.getByRole('button', { name: 'Upload', exact: true }).click()
  await page.getByRole('button', { name: 'Download' }).waitFor()
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: 'Download' }).click()
  ])
  t.same(await readFile(await download.path()), pdf, 'the bytes that were uploaded')
  const link = new URL(download.url())
  t.equal(link.origin, base, "from the service's own address")
  t.not(link.search, '', 'a signed link')
  const unsigned = await server.app.inject({ url: link.pathname })
  t.ok(unsigned.statusCode >= 400, `the same path without its signature is refused (${unsigned.statusCode})`)
})

t.test("every request was public API with the person's own token", async (t) => {
  const report = await checkRequests(server, seen.requests, ada.user._id)
  t.same(report.unknown, [], 'the signed file link included (a file download)')
  t.same(report.foreignBearer, [])
  t.same(report.clientIds, [])
  t.same(seen.problems, [], 'no script error, no CSP violation')
})
