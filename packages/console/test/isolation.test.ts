import t from 'tap'
import type { Page } from 'playwright-core'
import { chromiumOrSkip, startConsoleServer, userWithRoles } from './helper.js'
import { launch, signIn } from './browser.js'

// Two tenants in two browser contexts never see each other's records or subscriptions, and a
// role without a field's read ACL never sees the field: not in the table, the form, the
// history, nor in any answer the browser received. This server has no realtime feed: the
// table then neither subscribes nor claims to be live.
if (!chromiumOrSkip(t, 'tenant and ACL browser test')) process.exit(0)

const server = await startConsoleServer(t, {}, { realtime: false })
const alice = await userWithRoles(server, ['manager'])
const bob = await userWithRoles(server, ['user'])
const post = async (who: typeof alice, url: string, payload: unknown): Promise<any> =>
  (await server.app.inject({ method: 'POST', url, headers: who.headers, payload: payload as any })).json()
const secret = 'Prefers calls after 4pm — confidential'
const aliceContact = await post(alice, '/api/v1/contacts', {
  firstName: 'Alice',
  lastName: 'Only',
  email: 'alice-contact@example.com',
  internalNotes: secret
})
await post(alice, '/api/v1/webhooks', { url: 'http://127.0.0.1:9/alice', events: ['*'] })
const bobContact = await post(bob, '/api/v1/contacts', {
  firstName: 'Bob',
  lastName: 'Own',
  email: 'bob-contact@example.com'
})
// Alice's record carries the field; Bob's gets it from no one (he may not write it either).
await server.app.inject({
  method: 'PUT',
  url: `/api/v1/contacts/${aliceContact._id as string}`,
  headers: alice.headers,
  payload: { internalNotes: `${secret} (edited)` }
})

const browser = await launch(t)

const urls: string[] = []

async function pageOf (who: typeof alice): Promise<{ page: Page; bodies: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 } })
  t.teardown(async () => await context.close())
  const page = await context.newPage()
  const bodies: string[] = []
  page.on('request', (req) => {
    urls.push(req.url())
  })
  page.on('response', (res) => {
    if (res.url().includes('/api/')) {
      res.text().then(
        (b) => bodies.push(b),
        () => {}
      )
    }
  })
  await signIn(page, server.url, who.user.email, who.password)
  return { page, bodies }
}

t.test('two tenants never see each other', async (t) => {
  const a = await pageOf(alice)
  const b = await pageOf(bob)
  await b.page.goto(`${server.url}/console/data/contacts`)
  await b.page.locator('main tbody tr').first().waitFor()
  t.same(await b.page.locator('main tbody th[scope=row]').allTextContents(), ['Bob Own'], 'Bob lists his contact only')
  t.equal(await b.page.locator('.badge', { hasText: /Live|Connecting/ }).count(), 0, 'no realtime feed: no live badge')
  await b.page.goto(`${server.url}/console/data/contacts/${aliceContact._id as string}`)
  await b.page.getByRole('alert').filter({ hasText: 'NOT_FOUND' }).waitFor()
  t.pass("Alice's record id is 404 for Bob")
  await b.page.goto(`${server.url}/console/webhooks`)
  await b.page.getByText('No subscription yet.').waitFor()
  t.pass("Alice's subscription is not Bob's")

  await a.page.goto(`${server.url}/console/data/contacts`)
  await a.page.locator('main tbody tr').first().waitFor()
  t.same(await a.page.locator('main tbody th[scope=row]').allTextContents(), ['Alice Only'])
  await a.page.goto(`${server.url}/console/data/contacts/${bobContact._id as string}`)
  await a.page.getByRole('alert').filter({ hasText: 'NOT_FOUND' }).waitFor()
  t.ok(
    [...a.bodies, ...b.bodies].every((body) => !(body.includes('Alice Only') && body.includes('Bob Own'))),
    'no answer mixed the two tenants'
  )
  t.notOk(
    b.bodies.some((body) => body.includes('alice-contact@example.com')),
    "nothing of Alice reached Bob's browser"
  )
  t.notOk(
    urls.some((u) => u.includes('/_events')),
    'and no subscription was attempted'
  )
})

t.test('a role without the read ACL never sees internalNotes; one with it does', async (t) => {
  const a = await pageOf(alice)
  await a.page.goto(`${server.url}/console/data/contacts/${aliceContact._id as string}`)
  await a.page.locator('.history li').nth(1).waitFor()
  t.equal(await a.page.getByLabel('Internal notes').inputValue(), `${secret} (edited)`, 'a manager reads and edits it')
  t.match(await a.page.locator('.history').textContent(), secret, 'and sees its history')

  // The same person and record, demoted to 'user': the stored notes and their history stay hidden.
  await server.db.collection('users').updateOne({ email: alice.user.email }, { $set: { roles: ['user'] } })
  const d = await pageOf(alice)
  await d.page.goto(`${server.url}/console/data/contacts`)
  await d.page.locator('main tbody tr').first().waitFor()
  t.notMatch(await d.page.locator('main table').textContent(), /internal notes|confidential/i, 'not a column')
  await d.page.getByText('Filters', { exact: true }).click()
  await d.page.getByRole('button', { name: 'Add filter' }).click()
  t.notOk(
    (await d.page.getByLabel('Field 1').locator('option').allTextContents()).includes('Internal notes'),
    'not offered as a filter'
  )
  await d.page.goto(`${server.url}/console/data/contacts/${aliceContact._id as string}`)
  await d.page.locator('.history li').nth(1).waitFor()
  t.notMatch(
    await d.page.locator('body').textContent(),
    /internal notes|confidential/i,
    'absent from the record page: form, read-only list, history'
  )
  await d.page.goto(`${server.url}/console/data/contacts/new`)
  await d.page.getByLabel('First name').waitFor()
  t.equal(await d.page.getByLabel('Internal notes').count(), 0, 'absent from the create form')
  t.ok(d.bodies.length >= 3, `${d.bodies.length} answers recorded`)
  t.notOk(
    d.bodies.some((body) => /internalNotes|confidential/.test(body)),
    'no answer the browser received carried the field or its value'
  )
})
