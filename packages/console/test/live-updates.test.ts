import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import type { Page } from 'playwright-core'
import { registerUser, type RegisteredUser } from '@svc/testkit'
import { chromiumOrSkip, startConsoleServer, userWithRoles } from './helper.js'
import { axeViolations, launch, signIn, watch } from './browser.js'
import { checkRequests } from './public-routes.js'

// The open table follows the realtime feed: an edit in another tab changes the row in place, a
// record created through the API is offered as "1 new record — Refresh" (the filter, sort and
// page stay as they are until then), a delete marks the row; another tenant's writes never show.
if (!chromiumOrSkip(t, 'live updates browser test')) process.exit(0)

const server = await startConsoleServer(t)
const base = server.url
const ada = await registerUser(server.app, { first_name: 'Ada', last_name: 'Lovelace' })
const bob = await registerUser(server.app, { first_name: 'Bob', last_name: 'Other' })
async function call (
  who: RegisteredUser,
  method: 'POST' | 'PUT' | 'DELETE',
  url: string,
  payload?: unknown
): Promise<any> {
  const res = await server.app.inject({
    method,
    url,
    headers: who.headers,
    ...(payload !== undefined ? { payload: payload as any } : {})
  })
  if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`)
  return res.json()
}
const deals: Record<string, any> = {}
for (const [title, amount] of [
  ['Pilot', 1200],
  ['Rollout', 54000],
  ['Renewal', 8000],
  ['Expansion', 22000]
] as const) {
  deals[title] = await call(ada, 'POST', '/api/v1/deals', { title, amount, stage: 'won' })
}

// Every connection to the server, to cut them all as a network failure would.
const sockets = new Set<import('node:net').Socket>()
server.app.server.on('connection', (s) => {
  sockets.add(s)
  s.on('close', () => sockets.delete(s))
})
const browser = await launch(t)
const axe: Record<string, string[]> = {}
async function tab (who: RegisteredUser, path: string): Promise<{ page: Page; seen: ReturnType<typeof watch> }> {
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 } })
  t.teardown(async () => await context.close())
  const page = await context.newPage()
  const seen = watch(page)
  await signIn(page, base, who.user.email, who.password, path)
  return { page, seen }
}
/**
 * The table follows the feed and has read its list: a write from now on shows as an event. The
 * badge alone is not enough: the stream may open before the list answers (on a loaded machine),
 * and a write in between is already among the rows the list reads.
 */
async function following (page: Page): Promise<void> {
  await page.locator('.badge', { hasText: 'Live' }).waitFor()
  await page.locator('main div[aria-busy=false]').waitFor()
}
const labels = async (page: Page): Promise<string[]> =>
  await page.locator('main tbody th[scope=row] a').allTextContents()
const listCalls = (seen: ReturnType<typeof watch>): number =>
  seen.requests.filter((r) => r.method === 'GET' && r.url.pathname === '/api/v1/deals').length

// Ada watches won deals of 5000 or more, most valuable first.
const filtered = '/console/data/deals?amount=%7B%22%24gte%22%3A5000%7D&__sort=amount%3Adesc'
const watcher = await tab(ada, filtered)
const { page } = watcher
await following(page)

t.test('an edit in another tab changes the row in place', async (t) => {
  t.same(await labels(page), ['Rollout', 'Expansion', 'Renewal'])
  const reads = listCalls(watcher.seen)
  const other = await tab(ada, `/console/data/deals/${deals.Expansion._id as string}`)
  await other.page.getByLabel('Amount').fill('23456')
  await other.page.getByRole('button', { name: 'Save changes' }).click()
  await other.page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor()
  const row = page.locator('main tbody tr', { hasText: 'Expansion' })
  await row.getByText('23,456').waitFor()
  t.match(await row.locator('th').textContent(), /updated just now/, 'marked as changed')
  t.equal(listCalls(watcher.seen), reads, 'without reading the list again')
  t.equal(new URL(page.url()).search, new URL(base + filtered).search, 'filter and sort kept')
  t.equal(await page.locator('[role=status]', { hasText: 'A record was updated' }).count(), 1, 'announced politely')
})

t.test("a create through the API is offered as a refresh; another tenant's never is", async (t) => {
  await call(bob, 'POST', '/api/v1/deals', { title: 'Bob secret deal', amount: 99000, stage: 'won' })
  await call(
    bob,
    'PUT',
    `/api/v1/deals/${(await call(bob, 'POST', '/api/v1/deals', { title: 'Bob other', amount: 7000 }))._id as string}`,
    { amount: 7001 }
  )
  await call(ada, 'POST', '/api/v1/deals', { title: 'Big one', amount: 70000, stage: 'won' })
  const bar = page.locator('.notice.live')
  await bar.waitFor()
  t.match(await bar.textContent(), /^1 new record\.\s*Refresh$/, "Ada's create only: Bob's two writes are not counted")
  t.same(await labels(page), ['Rollout', 'Expansion', 'Renewal'], 'the rows stay put until asked')
  axe.newRecords = await axeViolations(page)
  if (process.env.SCREENSHOTS === '1') {
    const dir = join(import.meta.dirname, '..', 'docs')
    mkdirSync(dir, { recursive: true })
    writeFileSync(join(dir, 'console-live.png'), await page.screenshot())
  }
  await bar.getByRole('button', { name: 'Refresh' }).click()
  await page.waitForFunction(() => document.querySelector('main tbody th[scope=row] a')?.textContent === 'Big one')
  t.same(await labels(page), ['Big one', 'Rollout', 'Expansion', 'Renewal'], 'read again with the same filter and sort')
  t.equal(await bar.count(), 0, 'the bar is gone')
  t.notMatch(await page.locator('main').textContent(), /Bob/, "nothing of Bob's tenant")
})

t.test('a delete marks the row; a restore clears the mark', async (t) => {
  await call(ada, 'DELETE', `/api/v1/deals/${deals.Renewal._id as string}`)
  const row = page.locator('main tbody tr', { hasText: 'Renewal' })
  await row.getByRole('button', { name: 'Restore Renewal' }).waitFor()
  t.equal(await row.getAttribute('class'), 'deleted')
  t.match(await row.locator('th').textContent(), /deleted just now/)
  axe.deleted = await axeViolations(page)
  await row.getByRole('button', { name: 'Restore Renewal' }).click()
  await row
    .getByText(/restored just now|^Renewal$/)
    .first()
    .waitFor()
  await page.waitForFunction(() => document.querySelector('main tbody tr.deleted') === null)
  t.pass('live again, in place')
})

t.test('a lost connection resumes from the last cursor: a change made meanwhile still arrives', async (t) => {
  const streams = (): string[] =>
    watcher.seen.requests.filter((r) => r.url.pathname === '/api/v1/_events').map((r) => r.url.search)
  const before = streams().length
  const reads = listCalls(watcher.seen)
  // Every badge the page shows from now on, however briefly (the reconnect waits about a second),
  // starting with the one shown now: a mutation elsewhere on the page before the sockets drop
  // would otherwise record it first (CI under load did).
  await page.evaluate(() => {
    const w = window as unknown as { badges: string[] }
    w.badges = [document.querySelector('.title-row .badge')?.textContent ?? '']
    new MutationObserver(() => {
      const text = document.querySelector('.title-row .badge')?.textContent ?? ''
      if (text !== w.badges.at(-1)) w.badges.push(text)
    }).observe(document.body, { subtree: true, childList: true, characterData: true })
  })
  for (const socket of sockets) socket.destroy()
  await call(ada, 'PUT', `/api/v1/deals/${deals.Rollout._id as string}`, { amount: 55555 })
  await page.locator('main tbody tr', { hasText: 'Rollout' }).getByText('55,555').waitFor({ timeout: 15_000 })
  await page.locator('.badge', { hasText: 'Live' }).waitFor()
  t.same(
    await page.evaluate(() => (window as unknown as { badges: string[] }).badges),
    ['Live', 'Reconnecting…', 'Live'],
    'the badge said live, then reconnecting, then live again'
  )
  const again = streams().slice(before)
  t.ok(again.length >= 1, 'a new stream was opened')
  t.match(new URLSearchParams(again[0]).get('lastEventId'), /\S+/, 'with the cursor of the last event handled')
  t.ok(new URLSearchParams(again[0]).get('ticket'), 'and a fresh ticket')
  t.equal(listCalls(watcher.seen), reads, 'the change came from the feed, not from reading the list again')
})

t.test("a second tenant's console sees only its own live changes", async (t) => {
  const other = await tab(bob, '/console/data/deals')
  await following(other.page)
  await call(ada, 'POST', '/api/v1/deals', { title: 'Ada again', amount: 6000, stage: 'won' })
  await call(bob, 'POST', '/api/v1/deals', { title: 'Bob again', amount: 6000 })
  await other.page.locator('.notice.live', { hasText: '1 new record' }).waitFor()
  await page.locator('.notice.live', { hasText: '1 new record' }).waitFor()
  await other.page.getByRole('button', { name: 'Refresh' }).click()
  await other.page.getByRole('link', { name: 'Bob again' }).waitFor()
  t.notMatch(await other.page.locator('main').textContent(), /Ada again|Big one|Pilot/, "Bob never sees Ada's records")
})

t.test('paging: forward by nextCursor where lists have it, back by page number', async (t) => {
  const probe = (
    await server.app.inject({ method: 'GET', url: '/api/v1/deals?__perPage=1', headers: ada.headers })
  ).json()
  const cursors = typeof probe.nextCursor === 'string'
  t.comment(
    cursors ? 'lists answer nextCursor: the pager walks with it' : 'lists have no nextCursor here: page numbers'
  )
  await page.goto(`${base}/console/data/deals?__sort=amount%3Aasc&__perPage=2`)
  await page.waitForFunction(() => document.querySelectorAll('main tbody tr').length === 2)
  const first = await labels(page)
  await page.getByRole('button', { name: 'Next ›' }).click()
  await page.waitForURL(cursors ? /__cursor=/ : /__page=2/)
  await page.waitForFunction((f) => document.querySelector('main tbody th[scope=row] a')?.textContent !== f, first[0])
  const second = await labels(page)
  t.equal(second.length, 2)
  t.notOk(
    second.some((l) => first.includes(l)),
    `page 2 (${second.join(', ')}) follows page 1 (${first.join(', ')})`
  )
  t.match(await page.locator('.pager').textContent(), /Page 2 of \d+/)
  await page.getByRole('button', { name: '‹ Previous' }).click()
  await page.waitForURL((u) => !u.search.includes('__cursor'))
  await page.waitForFunction((f) => document.querySelector('main tbody th[scope=row] a')?.textContent === f, first[0])
  t.same(await labels(page), first, 'back to page 1')
})

t.test("live updates carry only the fields the viewer's role may read", async (t) => {
  const carol = await userWithRoles(server, ['manager'])
  const contact = await call(carol, 'POST', '/api/v1/contacts', {
    firstName: 'Carl',
    lastName: 'Client',
    email: 'carl@example.com',
    internalNotes: 'noted before'
  })
  // Carol's account loses the manager role: her next sign-in cannot read internalNotes, while
  // her earlier (manager) token still writes it.
  await server.db.collection('users').updateOne({ email: carol.user.email }, { $set: { roles: ['user'] } })
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 } })
  t.teardown(async () => await context.close())
  const viewer = await context.newPage()
  // Every message of every event stream the page receives, as the browser got it.
  const messages: string[] = []
  const cdp = await context.newCDPSession(viewer)
  cdp.on('Network.eventSourceMessageReceived', (m) => messages.push(`${m.eventName} ${m.data}`))
  await cdp.send('Network.enable')
  await signIn(viewer, base, carol.user.email, carol.password, '/console/data/contacts')
  await following(viewer)
  await viewer.getByRole('link', { name: 'Carl Client' }).waitFor()
  await call(carol, 'PUT', `/api/v1/contacts/${contact._id as string}`, {
    lastName: 'Changed',
    internalNotes: 'confidential live note'
  })
  await viewer.getByRole('link', { name: 'Carl Changed' }).waitFor()
  t.pass('the row changed in place')
  t.ok(
    messages.some((m) => m.startsWith('contacts.updated') && m.includes('Changed')),
    `the update came over the feed (${messages.length} messages)`
  )
  t.notOk(
    messages.some((m) => /internalNotes|confidential|noted before/.test(m)),
    'no message the browser received carried the field or its value'
  )
  t.notMatch(await viewer.locator('body').textContent(), /internal notes|confidential|noted before/i, 'nor the page')
})

t.test("every request was public API with the person's own credentials", async (t) => {
  const report = await checkRequests(server, watcher.seen.requests, ada.user._id)
  t.same(report.unknown, [])
  t.same(report.foreignBearer, [], 'bearer on API calls, a ticket (not a bearer) on the stream')
  t.ok(report.streams >= 1, `${report.streams} stream(s)`)
  // The cut connection is the one failure the browser reports (the stream it ended mid-way).
  t.same(
    watcher.seen.problems.filter((p) => !p.includes('ERR_INCOMPLETE_CHUNKED_ENCODING')),
    [],
    'no script error, no CSP violation'
  )
  for (const [name, v] of Object.entries(axe)) t.same(v, [], `${name}: no axe violation`)
})
