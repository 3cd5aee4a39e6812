// The checked-in CRM client (examples/client) against a live server: every method, its failure
// paths and tenant isolation, over real HTTP.
import t, { type Test } from 'tap'
import { signToken, tokenUser } from '@svc/testkit'
import { createClient, type Api } from '../../../examples/client/index.js'
import { isSvcError, MemoryTokenStore, SvcError } from '../src/index.js'
import { crm, extra } from './fixtures/schemas.js'
import { email, JWT_SECRET, PNG, startServer } from './helper.js'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

async function rejects<C extends string> (
  t: Test,
  p: Promise<unknown>,
  code: C,
  status: number,
  what: string
): Promise<SvcError> {
  try {
    await p
  } catch (err) {
    t.ok(isSvcError(err), `${what}: a SvcError`)
    const e = err as SvcError
    t.equal(e.code, code, `${what}: code`)
    t.equal(e.status, status, `${what}: status`)
    return e
  }
  t.fail(`${what}: resolved instead of failing with ${code}`)
  throw new Error('unreachable')
}

t.test('the generated CRM client on a live server', async (t) => {
  const server = await startServer(t, [...crm, ...extra])
  const api: Api = createClient({ baseUrl: server.url })
  const session = await api.auth.register({
    first_name: 'Ada',
    last_name: 'Lovelace',
    email: email(),
    password: 'analytical-engine'
  })
  t.match(
    session,
    { user: { email: String }, accessToken: String, refreshToken: String },
    'register answers the session'
  )

  t.test('records: create, get, update, list, search, bulk update, delete, restore, history', async (t) => {
    const company = await api.companies.create({ name: 'Acme', industry: 'software', address: { city: 'Paris' } })
    t.equal(company.name, 'Acme')
    const grace = await api.contacts.create({
      firstName: 'Grace',
      lastName: 'Hopper',
      email: 'GRACE@example.com',
      companyId: company._id,
      score: 7
    })
    t.equal(grace.email, 'grace@example.com', 'lowercased by the server')
    t.equal(grace.fullName, 'Grace Hopper', 'computed field')
    await api.contacts.create({
      firstName: 'Alan',
      lastName: 'Turing',
      email: 'alan@example.com',
      score: 3,
      tags: ['math']
    })
    t.equal((await api.contacts.get(grace._id)).lastName, 'Hopper')

    const updated = await api.contacts.update(grace._id, { title: 'Rear Admiral', phone: null })
    t.equal(updated.title, 'Rear Admiral')

    const page = await api.contacts.list({ filter: { score: { $gte: 5 } }, sort: ['lastName:asc'], perPage: 10 })
    t.same(
      page.results.map((c) => c.lastName),
      ['Hopper'],
      'operator filter'
    )
    t.match(page, { totalResults: 1, page: 1, perPage: 10, totalPages: 1, nextPage: null, prevPage: null })
    t.same(
      (await api.contacts.list({ filter: { lastName: { $in: ['Turing', 'Nobody'] } } })).results.map(
        (c) => c.firstName
      ),
      ['Alan'],
      '$in'
    )
    t.same(
      (await api.contacts.list({ filter: { email: { $regex: '^gra', $options: 'i' } } })).results.map(
        (c) => c.firstName
      ),
      ['Grace'],
      '$regex'
    )
    t.same(
      (await api.contacts.list({ filter: { tags: 'math' } })).results.map((c) => c.firstName),
      ['Alan'],
      'array element match'
    )
    t.same(
      (await api.contacts.list({ filter: { lastName: '{not json' } })).results,
      [],
      'a value starting with { is matched as text'
    )
    t.same(
      (await api.contacts.list({ sort: 'score:desc', page: 2, perPage: 1 })).results.map((c) => c.score),
      [3],
      'paging and sort'
    )
    t.same(
      (await api.contacts.search('grace')).results.map((c) => c.lastName),
      ['Hopper'],
      'search'
    )

    const bulk = await api.contacts.bulkUpdate({ score: { $lt: 5 } }, { status: 'prospect' })
    t.same(bulk, { numAffected: 1 })
    t.equal((await api.contacts.list({ filter: { status: 'prospect' } })).totalResults, 1)

    const tomb = await api.contacts.delete(grace._id)
    t.type(tomb.deletedAt, 'string', 'soft delete answers the tombstone')
    await rejects(t, api.contacts.get(grace._id), 'NOT_FOUND', 404, 'get of a deleted record')
    t.equal((await api.contacts.get(grace._id, { includeDeleted: true }))._id, grace._id, 'includeDeleted')
    t.equal((await api.contacts.list({ includeDeleted: true })).totalResults, 2)
    t.equal((await api.contacts.restore(grace._id)).deletedAt, undefined, 'restored')
    await rejects(t, api.contacts.restore(grace._id), 'NOT_FOUND', 404, 'restore of a live record')

    const history = await api.contacts.history(grace._id, { perPage: 10 })
    t.same(
      history.results.map((h) => h.action),
      ['restore', 'delete', 'update', 'create'],
      'history, newest first'
    )
    t.equal(
      (await api.contacts.history(grace._id, { perPage: 1, page: 2 })).results[0].action,
      'delete',
      'history paging'
    )
  })

  t.test('include, relations and aggregations', async (t) => {
    const company = await api.companies.create({ name: 'Initech' })
    const contact = await api.contacts.create({
      firstName: 'Peter',
      lastName: 'Gibbons',
      email: 'peter@initech.test',
      companyId: company._id
    })
    const deal = await api.deals.create({
      title: 'TPS',
      amount: 1200,
      stage: 'won',
      companyId: company._id,
      contactId: contact._id
    })
    await api.tasks.create({ title: 'Call', dealId: deal._id })
    const withCompany = await api.deals.get(deal._id, { include: ['company', 'tasks'] })
    t.equal(withCompany.company?.name, 'Initech', 'belongsTo included')
    t.same(
      withCompany.tasks.map((x) => x.title),
      ['Call'],
      'hasMany included'
    )
    const listed = await api.deals.list({ include: ['contact'], filter: { _id: deal._id } })
    t.equal(listed.results[0].contact?.lastName, 'Gibbons', 'include on list')
    t.equal((await api.deals.company(deal._id))?.name, 'Initech', 'relation method')
    t.same(
      (await api.deals.tasks(deal._id)).map((x) => x.title),
      ['Call']
    )
    t.same(
      (await api.companies.deals(company._id)).map((d) => d.title),
      ['TPS']
    )
    await api.deals.create({ title: 'Small', amount: 10, stage: 'won' })
    const agg = await api.deals.aggregations.byStage({ minAmount: 1000, closingAfter: undefined })
    t.same(agg.results, [{ _id: 'won', count: 1, total: 1200 }], 'aggregation with a typed param')
    t.same((await api.deals.aggregations.byStage()).results, [{ _id: 'won', count: 2, total: 1210 }])
    await rejects(
      t,
      api.deals.aggregations.byStage({ closingAfter: 'not a date' }),
      'VALIDATION',
      400,
      'aggregation param that does not cast'
    )
  })

  t.test('state transitions', async (t) => {
    const deal = await api.deals.create({ title: 'Pilot', amount: 5 })
    t.equal(deal.approval, 'draft')
    t.same(deal.availableTransitions, ['submitted'])
    const submitted = await api.deals.transitionApproval(deal, 'submitted')
    t.equal(submitted.approval, 'submitted')
    if (submitted.approval === 'submitted') {
      t.equal((await api.deals.transitionApproval(submitted, 'approved')).approval, 'approved')
    }
    const e = await rejects(
      t,
      api.deals.transitionApproval(deal._id, 'draft'),
      'INVALID_TRANSITION',
      400,
      'a move the table refuses'
    )
    if (isSvcError(e, 'INVALID_TRANSITION')) {
      t.match(e.details, { current: 'approved', attempted: 'draft', allowed: [] })
    }
    t.equal(e.requestId?.match(UUID)?.[0], e.requestId, 'x-request-id carried')
  })

  t.test('files: upload, fetch URL, delete', async (t) => {
    const c = await api.contacts.create({ firstName: 'Pic', lastName: 'Ture', email: 'pic@example.test' })
    const meta = await api.contacts.uploadAvatar(c._id, new Blob([PNG], { type: 'image/png' }), { filename: 'me.png' })
    t.match(meta, { contentType: 'image/png', originalName: 'me.png', size: PNG.length, url: String })
    const fetched = await api.contacts.fetchAvatarUrl(c._id)
    const download = await fetch(fetched.url)
    t.equal(download.status, 200)
    t.same(Buffer.from(await download.arrayBuffer()), PNG, 'the uploaded bytes')
    t.equal((await api.contacts.get(c._id)).avatar?.key, meta.key, 'the record names the file')
    t.same(await api.contacts.deleteAvatar(c._id), { ok: true })
    await rejects(t, api.contacts.fetchAvatarUrl(c._id), 'NOT_FOUND', 404, 'fetch of an empty file field')
    const e = await rejects(
      t,
      api.contacts.uploadAvatar(c._id, new Blob(['%PDF-1.4 not an image'])),
      'VALIDATION',
      400,
      'a refused type'
    )
    t.equal(e.details?.recoverable, true)
    const d = await api.deals.create({ title: 'Signed', amount: 1 })
    await api.deals.uploadContract(
      d._id,
      new File([Buffer.from('%PDF-1.4\n%%EOF\n')], 'c.pdf', { type: 'application/pdf' })
    )
    t.match(
      new URL((await api.deals.fetchContractUrl(d._id)).url).searchParams.get('sig'),
      /.+/,
      'a private file answers a signed link'
    )
  })

  t.test('errors carry the envelope', async (t) => {
    const bad = await rejects(
      t,
      api.contacts.create({ firstName: 'X', lastName: 'Y', email: 'x@y.z', nope: 1 } as never),
      'VALIDATION',
      400,
      'an undeclared field'
    )
    t.match(bad.message, /nope/)
    t.match(bad.requestId, UUID)
    await rejects(t, api.contacts.get('000000000000000000000000'), 'NOT_FOUND', 404, 'unknown id')
    await rejects(
      t,
      api.contacts.list({ filter: { score: 'abc' as never } }),
      'VALIDATION',
      400,
      'a filter value that does not cast'
    )
    const forbidden = await rejects(
      t,
      api.contacts.create({ firstName: 'A', lastName: 'B', email: 'ab@example.test', internalNotes: 'secret' }),
      'FORBIDDEN',
      403,
      'field ACL on write'
    )
    t.equal(forbidden.details?.field, 'internalNotes')
    const key = `key-${Date.now()}`
    const first = await api.companies.create({ name: 'Once' }, { idempotencyKey: key })
    t.equal(
      (await api.companies.create({ name: 'Once' }, { idempotencyKey: key }))._id,
      first._id,
      'an idempotent create answers the first record'
    )
    await rejects(
      t,
      api.companies.create({ name: 'Other' }, { idempotencyKey: key }),
      'CONFLICT',
      409,
      'the same key with another body'
    )
    t.equal(
      (await api.companies.create({ name: 'Auto key' }, { idempotencyKey: true })).name,
      'Auto key',
      'a generated key'
    )
    await rejects(t, api.companies.create({ name: 'Once' }), 'CONFLICT', 409, 'duplicate unique key')
  })

  t.test('tenant isolation', async (t) => {
    const mine = await api.tasks.create({ title: 'mine' })
    const other = createClient({
      baseUrl: server.url,
      accessToken: tokenUser(JWT_SECRET).headers.authorization.slice(7)
    })
    await rejects(t, other.tasks.get(mine._id), 'NOT_FOUND', 404, "another tenant's record")
    t.equal((await other.tasks.list()).totalResults, 0, "another tenant's list is empty")
    await rejects(
      t,
      other.tasks.update(mine._id, { done: true }),
      'NOT_FOUND',
      404,
      "update of another tenant's record"
    )
    // Bulk update is an upsert pinned to the caller: no match in its tenant inserts its own record.
    t.same(await other.tasks.bulkUpdate({ title: 'mine' }, { done: true }), { numAffected: 1 })
    t.match(
      (await other.tasks.list()).results,
      [{ title: 'mine', done: true }],
      "the upsert lands in the caller's tenant"
    )
    await rejects(t, other.tasks.delete(mine._id), 'NOT_FOUND', 404, "delete of another tenant's record")
    await rejects(t, other.tasks.history(mine._id), 'NOT_FOUND', 404, "history of another tenant's record")
    t.equal((await api.tasks.get(mine._id)).done, false, 'untouched')
  })

  t.test('sessions: login, refresh-token rotation, logout', async (t) => {
    const mail = email()
    const tokens = new MemoryTokenStore()
    const a = createClient({ baseUrl: server.url, tokens })
    await a.auth.register({ first_name: 'R', last_name: 'T', email: mail, password: 'rotate-me-please' })
    await rejects(t, a.auth.login(mail, 'wrong-password'), 'UNAUTHENTICATED', 401, 'wrong password')
    const s = await a.auth.login(mail, 'rotate-me-please')
    t.equal(tokens.get()?.refreshToken, s.refreshToken, 'login fills the store')
    // An expired access token: the next calls refresh once (in parallel) and retry.
    const expired = signToken({ user_id: s.user._id, email: mail, roles: ['user'] }, JWT_SECRET, { expiresIn: -10 })
    tokens.set({ accessToken: expired, refreshToken: s.refreshToken })
    const [l1, l2] = await Promise.all([a.tasks.list(), a.tasks.list()])
    t.equal(l1.totalResults, 0)
    t.equal(l2.totalResults, 0)
    const rotated = tokens.get()
    t.not(rotated?.accessToken, expired, 'a new access token')
    t.not(rotated?.refreshToken, s.refreshToken, 'the refresh token rotated')
    await a.tasks.create({ title: 'after refresh' })
    t.equal((await a.tasks.list()).totalResults, 1, 'the rotated session works')
    // A refresh token the server refuses ends the session.
    tokens.set({ accessToken: expired, refreshToken: 'not-a-refresh-token' })
    await rejects(t, a.tasks.list(), 'UNAUTHENTICATED', 401, 'refused refresh')
    t.equal(tokens.get(), null, 'the store is cleared')
    await a.auth.login(mail, 'rotate-me-please')
    await a.auth.logout()
    await rejects(t, a.tasks.list(), 'UNAUTHENTICATED', 401, 'after logout')
    const fixed = createClient({ baseUrl: server.url, accessToken: expired })
    await rejects(t, fixed.tasks.list(), 'UNAUTHENTICATED', 401, 'a fixed bearer is never refreshed')
  })

  t.test('abort signals', async (t) => {
    const ac = new AbortController()
    ac.abort()
    await t.rejects(api.contacts.list({ signal: ac.signal }), { name: 'AbortError' }, 'an aborted signal')
    const later = new AbortController()
    const p = api.contacts.get('000000000000000000000000', { signal: later.signal })
    later.abort()
    await t.rejects(p, { name: 'AbortError' }, 'aborted in flight')
  })
})

t.test('the package example runs as shown', async (t) => {
  const { pipeline } = await import('../examples/basic.js')
  const server = await startServer(t, crm)
  const api = createClient({ baseUrl: server.url })
  await api.auth.register({ first_name: 'E', last_name: 'X', email: email(), password: 'example-password' })
  t.same(await pipeline(api), ['Pilot (Acme)', 'refused: submitted → draft (allowed: approved, rejected)'])
})
