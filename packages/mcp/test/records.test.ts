import t from 'tap'
import { McpError } from '@modelcontextprotocol/sdk/types.js'
import { buildApp, connect, fails, makeUser, ok } from './helper.js'

// Every record tool round-trips through the resource service; the REST rules that matter
// (soft delete/restore, idempotency, state transitions, validation) hold the same way.

t.test('create, get, list, search, update, delete, restore, history', async (t) => {
  const { url } = await buildApp(t)
  const client = await connect(t, url, makeUser().headers)
  const ann = await ok(client, 'create_contacts', {
    record: { firstName: 'Ann', lastName: 'Lee', email: 'ANN@Example.com', score: 7 }
  })
  t.match(
    ann,
    { firstName: 'Ann', email: 'ann@example.com', status: 'lead', fullName: 'Ann Lee', _id: /^[0-9a-f]{24}$/ },
    'defaults, lowercase and computed fields applied'
  )
  await ok(client, 'create_contacts', {
    record: { firstName: 'Bob', lastName: 'Stone', score: 50, status: 'customer' }
  })
  t.same(await ok(client, 'get_contacts', { id: ann._id }), ann, 'get returns what create returned')
  {
    const page = await ok(client, 'list_contacts', { filter: { score: { $gte: 10 } } })
    t.same(
      page.results.map((r: any) => r.firstName),
      ['Bob'],
      'operator filter'
    )
    t.match(page, {
      totalResults: 1,
      page: 1,
      perPage: 20,
      totalPages: 1,
      nextPage: null,
      prevPage: null,
      truncated: false
    })
  }
  {
    const page = await ok(client, 'list_contacts', { sort: 'score:asc', perPage: 1, page: 2 })
    t.same(
      page.results.map((r: any) => r.firstName),
      ['Bob'],
      'sort and paging'
    )
    t.match(page, { totalPages: 2, nextPage: null, prevPage: 1 })
  }
  {
    const page = await ok(client, 'search_contacts', { q: 'stone' })
    t.same(
      page.results.map((r: any) => r.firstName),
      ['Bob'],
      'text search over searchable fields'
    )
  }
  {
    const updated = await ok(client, 'update_contacts', { id: ann._id, record: { status: 'customer', email: null } })
    t.equal(updated.status, 'customer')
    t.notOk('email' in updated, 'null clears an optional field')
  }
  {
    const deleted = await ok(client, 'delete_contacts', { id: ann._id })
    t.ok(deleted.deletedAt, 'soft delete answers the tombstone')
    t.match(await fails(client, 'get_contacts', { id: ann._id }), { code: 'NOT_FOUND' }, 'a tombstone is not found')
    t.equal(
      (await ok(client, 'get_contacts', { id: ann._id, includeDeleted: true }))._id,
      ann._id,
      'includeDeleted reads it'
    )
    const page = await ok(client, 'list_contacts', { includeDeleted: true })
    t.equal(page.totalResults, 2, 'includeDeleted on list')
    t.match(await fails(client, 'delete_contacts', { id: ann._id }), { code: 'NOT_FOUND' }, 'a second delete is 404')
  }
  {
    const restored = await ok(client, 'restore_contacts', { id: ann._id })
    t.notOk('deletedAt' in restored, 'restored')
    t.match(
      await fails(client, 'restore_contacts', { id: ann._id }),
      { code: 'NOT_FOUND' },
      'restoring a live record is 404'
    )
  }
  {
    const history = await ok(client, 'history_contacts', { id: ann._id })
    t.same(
      history.results.map((h: any) => h.action),
      ['restore', 'delete', 'update', 'create'],
      'history, newest first'
    )
    t.same(history.results[2].diff.status, { from: 'lead', to: 'customer' })
    t.equal(history.results[0].actor.userId, ann.userId)
  }
})

t.test('soft delete off: delete is permanent and there is no restore tool', async (t) => {
  const { url } = await buildApp(t)
  const client = await connect(t, url, makeUser().headers)
  const line = await ok(client, 'create_logs', { record: { line: 'hello' } })
  await ok(client, 'delete_logs', { id: line._id })
  t.match(await fails(client, 'get_logs', { id: line._id }), { code: 'NOT_FOUND' }, 'removed for good')
  await t.rejects(
    client.callTool({ name: 'restore_logs', arguments: { id: line._id } }),
    McpError,
    'restore_logs does not exist'
  )
  t.match(
    await fails(client, 'list_logs', { includeDeleted: true }),
    { code: 'VALIDATION', details: { field: 'includeDeleted' } },
    'includeDeleted is not an argument of list_logs'
  )
})

t.test('idempotency key: a replay answers the first record, another body is CONFLICT', async (t) => {
  const { app, url } = await buildApp(t)
  const client = await connect(t, url, makeUser().headers)
  const first = await client.callTool({
    name: 'create_deals',
    arguments: { record: { title: 'Pilot', amount: 100 }, idempotencyKey: 'k-1' }
  })
  const again = await client.callTool({
    name: 'create_deals',
    arguments: { record: { title: 'Pilot', amount: 100 }, idempotencyKey: 'k-1' }
  })
  t.same(again.structuredContent, first.structuredContent, 'the same record again')
  t.match((again.content as any)[0].text, /already created with this idempotency key/, 'the text says it was a replay')
  t.equal(await app.svc.db.collection('deals').countDocuments(), 1, 'one record')
  t.match(await fails(client, 'create_deals', { record: { title: 'Other', amount: 1 }, idempotencyKey: 'k-1' }), {
    code: 'CONFLICT',
    details: { field: 'idempotencyKey' }
  })
  t.match(await fails(client, 'create_deals', { record: { title: 'x', amount: 1 }, idempotencyKey: 'has space' }), {
    code: 'VALIDATION',
    details: { field: 'idempotencyKey' }
  })
})

t.test('state fields move along the transition table through update_', async (t) => {
  const { app, url } = await buildApp(t)
  const events: any[] = []
  app.svc.events.on('deals.transitioned', (e: unknown) => {
    events.push(e)
  })
  const client = await connect(t, url, makeUser().headers)
  const deal = await ok(client, 'create_deals', { record: { title: 'Pilot', amount: 100 } })
  t.match(deal, { approval: 'draft', availableTransitions: ['submitted'] })
  t.match(
    await fails(client, 'create_deals', { record: { title: 'x', amount: 1, approval: 'approved' } }),
    { code: 'VALIDATION', details: { field: 'record.approval' } },
    'create cannot pick a non-initial state'
  )
  {
    const err = await fails(client, 'update_deals', { id: deal._id, record: { approval: 'approved' } })
    t.same(err, {
      code: 'INVALID_TRANSITION',
      message: "approval cannot move from 'draft' to 'approved'",
      details: { field: 'approval', current: 'draft', attempted: 'approved', allowed: ['submitted'] }
    })
  }
  const submitted = await ok(client, 'update_deals', { id: deal._id, record: { approval: 'submitted' } })
  t.same(submitted.availableTransitions, ['approved', 'rejected'])
  t.match(
    events,
    [{ type: 'deals.transitioned', recordId: deal._id, field: 'approval', from: 'draft', to: 'submitted' }],
    'the transition is an event'
  )
  const history = await ok(client, 'history_deals', { id: deal._id })
  t.ok(
    history.results.some((h: any) => h.action === 'transition'),
    'and an audit row'
  )
})

t.test('bad input is a tool error with the stable code and nothing is written', async (t) => {
  const { app, url } = await buildApp(t)
  const client = await connect(t, url, makeUser().headers)
  t.match(
    await fails(client, 'create_deals', { record: { title: 'x' } }),
    { code: 'VALIDATION', message: /amount/, details: { field: 'record.amount' } },
    'a missing required field'
  )
  t.match(
    await fails(client, 'create_deals', { record: { title: 'x', amount: '5' } }),
    { code: 'VALIDATION', details: { field: 'record.amount' } },
    'no type coercion'
  )
  t.match(
    await fails(client, 'create_deals', { record: { title: 'x', amount: -1 } }),
    { code: 'VALIDATION', details: { field: 'record.amount' } },
    'min'
  )
  t.match(
    await fails(client, 'create_deals', { record: { title: 'x', amount: 1, colour: 'red' } }),
    { code: 'VALIDATION', details: { field: 'record.colour' } },
    'an unknown field is named'
  )
  t.match(
    await fails(client, 'create_deals', { record: { title: 'x', amount: 1, userId: 'someone-else' } }),
    { code: 'VALIDATION', details: { field: 'record.userId' } },
    'the tenant cannot be supplied'
  )
  t.match(await fails(client, 'create_contacts', { record: { firstName: 'A', lastName: 'B', fullName: 'C' } }), {
    code: 'VALIDATION',
    message: 'fullName is computed and cannot be written',
    details: { field: 'fullName' }
  })
  t.match(
    await fails(client, 'list_deals', { filter: { amount: { $where: '1' } } }),
    { code: 'VALIDATION' },
    'an operator outside the allow-list'
  )
  t.match(
    await fails(client, 'list_deals', { perPage: 101 }),
    { code: 'VALIDATION', details: { field: 'perPage' } },
    'pages are capped at 100'
  )
  t.match(
    await fails(client, 'list_deals', { sort: 'nope:asc' }),
    { code: 'VALIDATION', message: "unknown field 'nope'" },
    'an unknown sort field'
  )
  t.match(
    await fails(client, 'list_deals', { sort: 'amount:up' }),
    { code: 'VALIDATION', details: { field: 'sort' } },
    "core's parameter names become argument names"
  )
  t.match(
    await fails(client, 'get_deals', { id: 'not-an-id' }),
    { code: 'NOT_FOUND' },
    'a malformed id is 404, as on REST'
  )
  t.match(await fails(client, 'get_deals', {}), { code: 'VALIDATION', details: { field: 'id' } }, 'a missing argument')
  t.equal(await app.svc.db.collection('deals').countDocuments(), 0, 'nothing was written')
  await ok(client, 'create_companies', { record: { name: 'Acme' } })
  t.match(
    await fails(client, 'create_companies', { record: { name: 'Acme' } }),
    { code: 'CONFLICT', details: { keys: ['name'] } },
    'a duplicate key is CONFLICT naming the field'
  )
})

t.test('an unexpected failure is INTERNAL, its message hidden in production', async (t) => {
  const boom = {
    path: 'things',
    fields: [{ name: 'name', type: String }],
    hooks: {
      beforeCreate: () => {
        throw new Error('secret detail')
      }
    }
  }
  for (const production of [false, true]) {
    const { url } = await buildApp(t, { schemas: [boom], mcp: { production } })
    const client = await connect(t, url, makeUser().headers)
    const err = await fails(client, 'create_things', { record: { name: 'x' } })
    t.same(
      err,
      { code: 'INTERNAL', message: production ? 'internal server error' : 'secret detail' },
      `production: ${String(production)}`
    )
    t.ok((await ok(client, 'list_things')).results.length === 0, 'the process keeps serving')
  }
})
