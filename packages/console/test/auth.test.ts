import t from 'tap'
import { chromiumOrSkip, startConsoleServer } from './helper.js'
import { axeViolations, launch, watch } from './browser.js'
import { checkRequests } from './public-routes.js'

// The signed-out pages and the session in headless Chromium: create an account, a reload keeps
// the session, an expired access token is renewed by the refresh token (rotated), sign out
// forgets it, and a forgotten password is reset through the mail's link. Access tokens live
// 2 s here, so the renewal happens within the test.
if (!chromiumOrSkip(t, 'sign-in pages browser test')) process.exit(0)

const ACCESS_TTL_S = 2
const server = await startConsoleServer(t, { resetPasswordPage: true }, { core: { accessTokenTtl: ACCESS_TTL_S } })
const base = server.url
// The host's mailer (the reference server installs its SMTP one the same way): reset mails land here.
const mails: Array<{ to: string; subject: string; text: string }> = []
server.app.svc.mailer = async (m) => {
  mails.push(m)
}

const browser = await launch(t)
const page = await browser.newPage({ viewport: { width: 1200, height: 900 } })
const seen = watch(page)
const axe: Record<string, string[]> = {}
const email = `new-${Date.now()}@example.com`
const stored = async (): Promise<string | null> =>
  await page.evaluate(() => sessionStorage.getItem('svc-console.refreshToken'))

t.test('create an account: signed in at once; a reload keeps the session', async (t) => {
  await page.goto(`${base}/console/`)
  await page.getByRole('link', { name: 'Create an account' }).click()
  await page.getByRole('heading', { name: 'Create an account' }).waitFor()
  axe.register = await axeViolations(page)
  await page.getByLabel('First name').fill('Nova')
  await page.getByLabel('Last name').fill('Newcomer')
  await page.getByLabel('Email').fill(email)
  await page.getByLabel('Password').fill('a good passphrase')
  await page.getByRole('button', { name: 'Create account' }).click()
  await page.getByRole('button', { name: 'Sign out' }).waitFor()
  t.match(await page.locator('.who').textContent(), email)
  const token = await stored()
  t.type(token, 'string', 'the refresh token is in this tab')
  await page.reload()
  await page.getByRole('button', { name: 'Sign out' }).waitFor()
  t.pass('still signed in after a reload')
  t.not(await stored(), token, 'the reload used the refresh token once (the service rotated it)')
})

t.test('an expired access token is renewed on the way, and the page goes on', async (t) => {
  const from = seen.requests.length
  const before = await stored()
  await page.waitForTimeout(ACCESS_TTL_S * 1000 + 1200)
  // A page with one request and no realtime stream (whose ticket could be the request refused first).
  await page.getByRole('link', { name: 'Webhooks' }).click()
  await page.getByText('No subscription yet.').waitFor()
  t.pass('the page answered')
  const after = seen.requests.slice(from).map((r) => `${r.method} ${r.url.pathname}`)
  t.same(
    after,
    ['GET /api/v1/webhooks', 'POST /auth/refresh', 'GET /api/v1/webhooks'],
    'refused with the expired token, one refresh, asked again'
  )
  t.not(await stored(), before, 'the stored refresh token is the rotated one')
})

t.test('sign out forgets both tokens', async (t) => {
  await page.getByRole('button', { name: 'Sign out' }).click()
  await page.getByRole('button', { name: 'Sign in' }).waitFor()
  t.same(await page.evaluate(() => Object.keys(sessionStorage)), [], 'nothing left in sessionStorage')
  t.same(await page.evaluate(() => Object.keys(localStorage)), [], 'nor in localStorage')
  await page.reload()
  await page.getByRole('button', { name: 'Sign in' }).waitFor()
  t.pass('a reload stays signed out')
})

t.test("a forgotten password: the mail's link opens the reset form; the old password stops working", async (t) => {
  await page.getByRole('link', { name: 'Forgot your password?' }).click()
  await page.getByRole('heading', { name: 'Reset your password' }).waitFor()
  await page.getByLabel('Email').fill(email)
  await page.getByRole('button', { name: 'Send a reset link' }).click()
  await page.getByText('If an account has this address, a reset link is on its way.').waitFor()
  axe.forgot = await axeViolations(page)
  t.equal(mails.length, 1, 'one mail')
  t.equal(mails[0].to, email)
  const link = /(http\S+\/reset-password\?token=\S+)/.exec(mails[0].text)?.[1]
  t.ok(link?.startsWith(`${base}/reset-password?token=`), `the mail links the service (${link ?? 'none'})`)
  await page.goto(link!)
  await page.waitForURL(/\/console\/reset-password\?token=/)
  t.equal(
    await page.getByLabel(/Reset code/).inputValue(),
    new URL(link!).searchParams.get('token'),
    'the code is filled in from the link'
  )
  axe.reset = await axeViolations(page)
  await page.getByLabel('New password').fill('another passphrase')
  await page.getByRole('button', { name: 'Set password' }).click()
  await page.getByText('Your password is changed').waitFor()
  await page.getByRole('link', { name: 'Sign in' }).click()
  await page.getByLabel('Email').fill(email)
  await page.getByLabel('Password').fill('a good passphrase')
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.getByRole('alert').filter({ hasText: 'Sign-in failed' }).waitFor()
  t.pass('the old password is refused')
  await page.getByLabel('Password').fill('another passphrase')
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.getByRole('button', { name: 'Sign out' }).waitFor()
  t.pass('the new one signs in')
})

t.test('every request was public API; axe finds nothing on these pages', async (t) => {
  const user = await server.db.collection('users').findOne({ email })
  // The mail's link is the person's navigation (the service's redirect), not a request of the console.
  const made = seen.requests.filter((r) => r.url.pathname !== '/reset-password')
  t.equal(made.length, seen.requests.length - 1, 'the link was followed once')
  const report = await checkRequests(server, made, String(user?._id))
  t.same(report.unknown, [], 'no request outside the public API')
  t.same(report.foreignBearer, [], "only this person's bearer")
  t.same(report.clientIds, [], 'never an api client id')
  t.same(seen.problems, [], 'no script error, no CSP violation')
  for (const [name, v] of Object.entries(axe)) t.same(v, [], `${name}: no violation`)
})
