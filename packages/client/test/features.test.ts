// A client generated at test time for schemas with what the CRM lacks: no soft delete or audit
// (no restore/history methods), api-client scopes, two state machines, a dashed path.
import { pathToFileURL } from 'node:url'
import t from 'tap'
import { ApiClientStore } from '@svc/core/kit'
import { tokenUser } from '@svc/testkit'
import { isSvcError, type SvcError } from '../src/index.js'
import { extra } from './fixtures/schemas.js'
import { JWT_SECRET, startServer, writeClient } from './helper.js'

async function code (p: Promise<unknown>): Promise<string> {
  try {
    await p
    return 'resolved'
  } catch (err) {
    return isSvcError(err) ? (err as SvcError).code : String(err)
  }
}

t.test('generated for the extra schemas, run live', async (t) => {
  const server = await startServer(t, extra)
  const file = writeClient(t, 'features', server.describe, { baseUrl: server.url })
  const { createClient, DEFAULT_BASE_URL } = await import(pathToFileURL(file).href)
  t.equal(DEFAULT_BASE_URL, server.url, '--base-url is baked in')
  const user = tokenUser(JWT_SECRET)
  const api = createClient({ accessToken: user.headers.authorization.slice(7) })

  t.test('no soft delete, no audit: no restore or history, a delete removes', async (t) => {
    t.equal(api.logs.restore, undefined)
    t.equal(api.logs.history, undefined)
    t.equal(typeof api.articles.restore, 'function')
    const log = await api.logs.create({ line: 'boot' })
    t.equal(log.level, 'info', 'default applied')
    t.equal((await api.logs.delete(log._id))._id, log._id)
    t.equal(await code(api.logs.get(log._id, { includeDeleted: true })), 'NOT_FOUND', 'gone for good')
    t.equal(await code(api.logs.list({ filter: { level: 'fatal' } })), 'VALIDATION', 'a value outside the enum')
  })

  t.test('two state machines in one schema; a dashed path', async (t) => {
    const ticket = await api.supportTickets.create({ subject: 'Printer' })
    t.match(ticket, {
      status: 'open',
      review: 'none',
      availableTransitions: { status: ['closed'], review: ['requested'] }
    })
    const closed = await api.supportTickets.transitionStatus(ticket, 'closed')
    t.equal(closed.status, 'closed')
    t.equal((await api.supportTickets.transitionReview(ticket._id, 'requested')).review, 'requested')
    t.equal(await code(api.supportTickets.transitionReview(ticket._id, 'none')), 'INVALID_TRANSITION')
    t.equal(
      await code(api.supportTickets.create({ subject: 'x', status: 'closed' })),
      'INVALID_TRANSITION',
      'a state must be reached by a transition'
    )
  })

  t.test('every field kind round-trips; hasOne and belongsTo includes; a required aggregation param', async (t) => {
    const owner = await api.logs.create({ line: 'owner' })
    const input = {
      grade: 2,
      seenAt: [new Date('2024-01-02T03:04:05.000Z')],
      flags: [true, false],
      scores: [1.5],
      extra: { any: ['thing'] },
      geo: { point: { lat: 48.85, lng: 2.35 }, label: 'Paris' },
      parts: [{ name: 'wheel', size: { sides: 4 } }],
      ownerId: owner._id
    }
    const made = await api.specimens.create(input)
    t.match(
      made,
      { ...input, label: 'unnamed', seenAt: ['2024-01-02T03:04:05.000Z'], phase: undefined, secret: undefined },
      'defaults applied, dates as ISO strings, read-ACL fields stripped'
    )
    const twin = await api.specimens.create({ label: 'twin', ownerId: made._id })
    const got = await api.specimens.get(made._id, { include: ['owner', 'twin'] })
    t.equal(got.owner.line, 'owner', 'belongsTo')
    t.equal(got.twin._id, twin._id, 'hasOne')
    t.equal(await api.specimens.twin(twin._id), null, 'hasOne without a match is null')
    t.same(
      (
        await api.specimens.list({
          filter: {
            'parts.size.sides': { $gte: 4 },
            'geo.point.lat': { $gt: 48 },
            seenAt: { $lt: new Date('2025-01-01') }
          }
        })
      ).results.map((x: { _id: string }) => x._id),
      [made._id],
      'nested and array paths'
    )
    const groups = (await api.specimens.aggregations.byGrade({ since: new Date(0), flag: true })).results as Array<{
      _id: unknown
      n: number
    }>
    t.same(groups, [{ _id: 2, n: 1 }], 'a Date and a Boolean param, both applied')
    t.equal(
      (await api.specimens.aggregations.byGrade({ since: new Date(Date.now() + 60_000) })).results.length,
      0,
      'the Date param filters'
    )
    t.equal(await code(api.specimens.aggregations.byGrade({})), 'VALIDATION', 'a required param left out')
    t.equal(await code(api.specimens.update(made._id, { secret: 'x' })), 'FORBIDDEN', 'field ACL on update')
  })

  t.test('api clients read their scope and may not write', async (t) => {
    await api.articles.create({ title: 'Draft' })
    await api.articles.create({ title: 'Launch', published: true })
    const { _id } = await new ApiClientStore(server.db).create({ role: 'public' })
    const pub = createClient({ clientId: String(_id) })
    t.same(
      (await pub.articles.list()).results.map((a: { title: string }) => a.title),
      ['Launch'],
      'the scope filter'
    )
    t.same(
      (await pub.articles.search('launch')).results.map((a: { title: string }) => a.title),
      ['Launch'],
      'search within the scope'
    )
    t.equal(await code(pub.articles.create({ title: 'x' })), 'FORBIDDEN', 'writes are refused')
    t.equal(await code(pub.logs.list()), 'FORBIDDEN', 'a schema without a scope for the role')
    const both = createClient({ clientId: String(_id), accessToken: user.headers.authorization.slice(7) })
    t.equal((await both.articles.list()).totalResults, 2, 'a bearer wins over the client id')
    t.equal(await code(createClient({ clientId: 'unknown' }).articles.list()), 'UNAUTHENTICATED')
  })
})
