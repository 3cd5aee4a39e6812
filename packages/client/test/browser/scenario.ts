// Runs in the page (bundled with esbuild): every kind of method and error path of the generated
// CRM client over the browser's own fetch, FormData, Blob and AbortController. Answers one
// `[what, value]` pair per check; the Node side compares them with what it expects.
import { createClient } from '../../../../examples/client/index.js'
import { isSvcError, MemoryTokenStore } from '../../src/index.js'

type Log = Array<[string, unknown]>

async function code (p: Promise<unknown>): Promise<string> {
  try {
    await p
    return 'resolved'
  } catch (err) {
    if (isSvcError(err)) return `${err.status} ${err.code}${err.requestId !== undefined ? ' +requestId' : ''}`
    return err instanceof Error ? err.name : String(err)
  }
}

export async function scenario (
  baseUrl: string,
  email: string,
  expiredToken: (userId: string) => Promise<string>
): Promise<Log> {
  const log: Log = []
  const tokens = new MemoryTokenStore()
  const api = createClient({ baseUrl, tokens })
  const session = await api.auth.register({ first_name: 'Bro', last_name: 'Wser', email, password: 'in-the-browser' })
  log.push(['register', typeof session.refreshToken])
  log.push(['wrong password', await code(api.auth.login(email, 'wrong-password'))])
  await api.auth.login(email, 'in-the-browser')

  const company = await api.companies.create({ name: 'Browserco' }, { idempotencyKey: 'browser-1' })
  log.push([
    'idempotent replay',
    (await api.companies.create({ name: 'Browserco' }, { idempotencyKey: 'browser-1' }))._id === company._id
  ])
  log.push([
    'key reused with another body',
    await code(api.companies.create({ name: 'Other' }, { idempotencyKey: 'browser-1' }))
  ])
  const contact = await api.contacts.create({
    firstName: 'Tim',
    lastName: 'Berners-Lee',
    email: 'TIM@w3.org',
    companyId: company._id
  })
  log.push(['create', contact.email])
  log.push(['get', (await api.contacts.get(contact._id)).fullName])
  log.push(['update', (await api.contacts.update(contact._id, { title: 'Sir' })).title])
  log.push([
    'list',
    (
      await api.contacts.list({ filter: { lastName: { $regex: '^Bern' } }, sort: 'lastName:asc', include: ['company'] })
    ).results.map((c) => c.company?.name)
  ])
  log.push(['search', (await api.contacts.search('tim')).totalResults])
  log.push(['bulkUpdate', await api.contacts.bulkUpdate({ email: 'tim@w3.org' }, { status: 'customer' })])
  log.push(['relation', (await api.contacts.company(contact._id))?.name])
  log.push(['delete', typeof (await api.contacts.delete(contact._id)).deletedAt])
  log.push(['get deleted', await code(api.contacts.get(contact._id))])
  log.push(['restore', (await api.contacts.restore(contact._id)).deletedAt ?? 'live'])
  log.push(['history', (await api.contacts.history(contact._id)).results.map((h) => h.action)])
  log.push(['undeclared field', await code(api.contacts.update(contact._id, { nope: 1 } as never))])
  log.push(['field ACL', await code(api.contacts.update(contact._id, { internalNotes: 'x' }))])

  const deal = await api.deals.create({ title: 'Web', amount: 2000, stage: 'won', companyId: company._id })
  log.push(['transition', (await api.deals.transitionApproval(deal, 'submitted')).approval])
  log.push(['illegal transition', await code(api.deals.transitionApproval(deal._id, 'draft'))])
  log.push(['aggregation', (await api.deals.aggregations.byStage({ minAmount: 1000 })).results])

  const png = new Uint8Array([
    0x89,
    0x50,
    0x4e,
    0x47,
    0x0d,
    0x0a,
    0x1a,
    0x0a,
    0,
    0,
    0,
    0x0d,
    0x49,
    0x48,
    0x44,
    0x52,
    0,
    0,
    0,
    1,
    0,
    0,
    0,
    1,
    8,
    0,
    0,
    0,
    0,
    0x3a,
    0x7e,
    0x9b,
    0x55,
    ...new Array(64).fill(0)
  ])
  const meta = await api.contacts.uploadAvatar(contact._id, new File([png], 'tim.png', { type: 'image/png' }))
  log.push(['upload', [meta.contentType, meta.originalName, meta.size]])
  const { url } = await api.contacts.fetchAvatarUrl(contact._id)
  log.push(['download', new Uint8Array(await (await fetch(url)).arrayBuffer()).length])
  log.push([
    'refused upload',
    await code(api.contacts.uploadAvatar(contact._id, new Blob(['plain text'], { type: 'text/plain' })))
  ])
  log.push(['deleteFile', await api.contacts.deleteAvatar(contact._id)])
  log.push(['fetch empty file', await code(api.contacts.fetchAvatarUrl(contact._id))])

  // Live events: EventSource with a single-use ticket, the browser default.
  const events: string[] = []
  const sub = api.companies.subscribe(
    (e) => {
      events.push(`${e.type} ${e.record?.name ?? ''}`)
    },
    { types: ['created'] }
  )
  await sub.ready
  await api.companies.create({ name: 'Live co' })
  for (let i = 0; i < 400 && events.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 25))
  sub.close()
  log.push(['subscribe', events])

  // Rotation: an expired access token is refreshed once and the call repeated.
  const before = tokens.get()!
  tokens.set({ accessToken: await expiredToken(session.user._id), refreshToken: before.refreshToken })
  log.push(['refreshed', (await api.contacts.list()).totalResults])
  log.push(['rotated', tokens.get()?.refreshToken !== before.refreshToken])
  tokens.set({ accessToken: 'garbage', refreshToken: 'garbage' })
  log.push(['refresh refused', await code(api.contacts.list())])
  log.push(['store cleared', tokens.get()])

  const ac = new AbortController()
  ac.abort()
  log.push(['aborted', await code(createClient({ baseUrl }).contacts.list({ signal: ac.signal }))])
  log.push(['no server', await code(createClient({ baseUrl: 'http://127.0.0.1:9', retries: 0 }).contacts.list())])
  return log
}
