import t from 'tap'
import type { RecordEvent, WriteResult } from '../src/index.js'
import { buildCoreApp, makeUser } from './helper.js'

t.test('example deals.approval: initial state, transitions, INVALID_TRANSITION, events, onEnter', async (t) => {
  const app = await buildCoreApp(t)
  const u = makeUser()
  const events: RecordEvent[] = []
  for (const type of ['deals.updated', 'deals.transitioned']) {
    app.svc.events.on(type, (e: RecordEvent) => {
      events.push(e)
    })
  }
  const results: WriteResult[] = []
  app.svc.services.get('deals').onWrite((r) => {
    results.push(r)
  })
  let id = ''
  {
    const res = await app.inject({
      method: 'POST',
      url: '/api/v1/deals',
      headers: u.headers,
      payload: { title: 'd', amount: 1 }
    })
    t.equal(res.statusCode, 201)
    t.match(
      res.json(),
      { approval: 'draft', availableTransitions: ['submitted'] },
      'initial state and availableTransitions'
    )
    id = res.json()._id
  }
  {
    const res = await app.inject({
      method: 'POST',
      url: '/api/v1/deals',
      headers: u.headers,
      payload: { title: 'e', amount: 1, approval: 'approved' }
    })
    t.equal(res.statusCode, 400, 'a client cannot create in a non-initial state')
    t.match(res.json(), {
      error: { code: 'INVALID_TRANSITION', details: { current: null, attempted: 'approved', allowed: ['draft'] } }
    })
    const ok = await app.inject({
      method: 'POST',
      url: '/api/v1/deals',
      headers: u.headers,
      payload: { title: 'f', amount: 1, approval: 'draft' }
    })
    t.equal(ok.statusCode, 201, 'naming the initial state is fine')
  }
  {
    const res = await app.inject({
      method: 'PUT',
      url: `/api/v1/deals/${id}`,
      headers: u.headers,
      payload: { approval: 'approved' }
    })
    t.equal(res.statusCode, 400, 'draft → approved is not in the table')
    t.same(res.json().error.details, {
      field: 'approval',
      current: 'draft',
      attempted: 'approved',
      allowed: ['submitted']
    })
    t.equal(res.json().error.code, 'INVALID_TRANSITION')
    const unknown = await app.inject({
      method: 'PUT',
      url: `/api/v1/deals/${id}`,
      headers: u.headers,
      payload: { approval: 'teleported' }
    })
    t.equal(unknown.statusCode, 400, 'an unknown state')
    t.match(
      unknown.json(),
      { error: { code: 'VALIDATION', details: { field: 'approval' } } },
      'unknown states are VALIDATION (enum), always'
    )
    const cleared = await app.inject({
      method: 'PUT',
      url: `/api/v1/deals/${id}`,
      headers: u.headers,
      payload: { approval: null }
    })
    t.equal(cleared.statusCode, 400, 'a state cannot be cleared')
    t.equal(cleared.json().error.code, 'INVALID_TRANSITION')
  }
  t.equal(events.length, 0, 'refused transitions emit nothing')
  {
    const res = await app.inject({
      method: 'PUT',
      url: `/api/v1/deals/${id}`,
      headers: u.headers,
      payload: { approval: 'submitted', amount: 5 }
    })
    t.equal(res.statusCode, 200, 'draft → submitted')
    t.match(res.json(), { approval: 'submitted', amount: 5, availableTransitions: ['approved', 'rejected'] })
    t.same(
      events.map((e) => e.type),
      ['deals.updated', 'deals.transitioned']
    )
    t.match(events[1], {
      recordId: id,
      userId: u.userId,
      field: 'approval',
      from: 'draft',
      to: 'submitted',
      record: { approval: 'submitted' }
    })
    t.match(
      results.find((r) => r.action === 'transitioned'),
      { transition: { field: 'approval', from: 'draft', to: 'submitted' }, before: { approval: 'draft' } },
      'write subscribers (audit) see the transition'
    )
  }
  {
    const get = await app.inject({ method: 'GET', url: `/api/v1/deals/${id}`, headers: u.headers })
    t.same(get.json().availableTransitions, ['approved', 'rejected'], 'on get')
    await app.inject({
      method: 'PUT',
      url: `/api/v1/deals/${id}`,
      headers: u.headers,
      payload: { approval: 'approved' }
    })
    const list = await app.inject({ method: 'GET', url: '/api/v1/deals?approval=approved', headers: u.headers })
    t.same(list.json().results[0].availableTransitions, [], 'terminal state: empty list')
  }
  {
    const res = await app.inject({
      method: 'PUT',
      url: '/api/v1/deals',
      headers: u.headers,
      payload: { filter: {}, record: { approval: 'draft' } }
    })
    t.equal(res.statusCode, 400, 'bulk PUT cannot move states')
    t.match(res.json(), { error: { code: 'VALIDATION', details: { field: 'record.approval' } } })
    const seeded = await app.inject({
      method: 'PUT',
      url: '/api/v1/deals',
      headers: u.headers,
      payload: { filter: { title: 'new one', approval: 'approved' }, record: { amount: 3 } }
    })
    t.equal(seeded.json().numAffected, 0, 'a bulk upsert never seeds a non-initial state')
    const seeded2 = await app.inject({
      method: 'PUT',
      url: '/api/v1/deals',
      headers: u.headers,
      payload: { filter: { title: 'new two' }, record: { amount: 3 } }
    })
    t.equal(seeded2.json().numAffected, 1)
    t.equal(
      (await app.svc.db.collection('deals').findOne({ title: 'new two' }))?.approval,
      'draft',
      'an upserted record starts in the initial state'
    )
  }
  {
    const bob = makeUser()
    const res = await app.inject({
      method: 'PUT',
      url: `/api/v1/deals/${id}`,
      headers: bob.headers,
      payload: { approval: 'rejected' }
    })
    t.equal(res.statusCode, 404, "another tenant cannot transition (or learn the state of) alice's record")
    t.notOk(JSON.stringify(res.json()).includes('approved'), 'no state leaked in the 404')
  }
})

t.test('onEnter runs after the write; its failure is swallowed; several machines give an object', async (t) => {
  const entered: Array<Record<string, any>> = []
  const schemas = [
    {
      path: 'tickets',
      fields: [
        { name: 'title', type: String },
        {
          name: 'status',
          type: String,
          stateMachine: {
            initial: 'open',
            states: ['open', 'closed'],
            transitions: { open: ['closed'], closed: ['open'] },
            onEnter: {
              closed: (a: Record<string, any>) => {
                entered.push(a)
              },
              open: () => {
                throw new Error('onEnter boom')
              }
            }
          }
        },
        {
          name: 'review',
          type: String,
          acl: { read: ['lead'] },
          stateMachine: { initial: 'none', states: ['none', 'done'], transitions: { none: ['done'] } }
        }
      ]
    }
  ]
  const app = await buildCoreApp(t, { schemas })
  const u = makeUser({ roles: ['user', 'lead'] })
  const id = (
    await app.inject({ method: 'POST', url: '/api/v1/tickets', headers: u.headers, payload: { title: 't' } })
  ).json()._id
  {
    const res = await app.inject({
      method: 'PUT',
      url: `/api/v1/tickets/${id}`,
      headers: u.headers,
      payload: { status: 'closed' }
    })
    t.equal(res.statusCode, 200)
    t.same(res.json().availableTransitions, { status: ['open'], review: ['done'] }, 'one list per state field')
    t.equal(entered.length, 1, 'onEnter[closed] ran')
    t.match(entered[0], {
      field: 'status',
      from: 'open',
      to: 'closed',
      record: { _id: id, status: 'closed' },
      user: { user_id: u.userId }
    })
    t.equal((await app.svc.db.collection('tickets').findOne({}))?.status, 'closed', 'stored before onEnter')
  }
  {
    const res = await app.inject({
      method: 'PUT',
      url: `/api/v1/tickets/${id}`,
      headers: u.headers,
      payload: { status: 'open' }
    })
    t.equal(res.statusCode, 200, 'a failing onEnter is not surfaced')
    t.equal(res.json().status, 'open')
  }
  {
    const plain = makeUser({ user_id: u.userId, roles: ['user'] })
    const res = await app.inject({ method: 'GET', url: `/api/v1/tickets/${id}`, headers: plain.headers })
    t.same(
      res.json().availableTransitions,
      { status: ['closed'] },
      'transitions of a hidden state field are hidden too'
    )
    t.notOk('review' in res.json())
    const bad = await app.inject({
      method: 'PUT',
      url: `/api/v1/tickets/${id}`,
      headers: plain.headers,
      payload: { review: 'none' }
    })
    t.equal(bad.statusCode, 200, 'sending the current value is no change')
    await app.inject({ method: 'PUT', url: `/api/v1/tickets/${id}`, headers: u.headers, payload: { review: 'done' } })
    const refused = await app.inject({
      method: 'PUT',
      url: `/api/v1/tickets/${id}`,
      headers: plain.headers,
      payload: { review: 'none' }
    })
    t.equal(refused.statusCode, 400)
    t.same(
      refused.json().error,
      {
        code: 'INVALID_TRANSITION',
        message: 'review: this change is not allowed now',
        details: { field: 'review', attempted: 'none' }
      },
      'a refusal does not reveal a state the caller cannot read'
    )
  }
})

t.test('state-machine schema checks stop start-up', async (t) => {
  const sm = { initial: 'a', states: ['a', 'b'], transitions: { a: ['b'] } }
  await t.rejects(
    buildCoreApp(t, {
      schemas: [{ path: 'x', fields: [{ name: 's', type: String, default: 'b', stateMachine: sm }] }]
    }),
    /fields\.s\.stateMachine\.default: .*initial state 'a'/
  )
  await t.rejects(
    buildCoreApp(t, { schemas: [{ path: 'x', fields: [{ name: 's', type: String, enum: ['a'], stateMachine: sm }] }] }),
    /fields\.s\.stateMachine\.states/
  )
  await t.rejects(
    buildCoreApp(t, {
      schemas: [{ path: 'x', fields: [{ name: 'o', type: { s: { type: String, stateMachine: sm } } }] }]
    }),
    /stateMachine: applies to top-level fields only/
  )
  await t.rejects(
    buildCoreApp(t, {
      schemas: [{ path: 'x', fields: [{ name: 'o', type: { s: { type: String, acl: { read: ['a'] } } } }] }]
    }),
    /acl: applies to top-level fields only/
  )
  await t.rejects(
    buildCoreApp(t, {
      schemas: [{ path: 'x', fields: [{ name: 's', type: String, stateMachine: { ...sm, onEnter: { c: () => 1 } } }] }]
    }),
    /onEnter\.c: 'c' is not a declared state/
  )
  await t.rejects(
    buildCoreApp(t, {
      schemas: [{ path: 'x', fields: [{ name: 'n', type: String, searchable: true, acl: { read: ['a'] } }] }]
    }),
    /fields\.n\.acl\.read: a searchable field cannot be read-restricted/
  )
})

t.test('service.transition (GraphQL/MCP): onEnter only, same table, ACL and tenancy', async (t) => {
  const calls: string[] = []
  const schemas = [
    {
      path: 'jobs',
      fields: [
        { name: 'title', type: String },
        {
          name: 'state',
          type: String,
          acl: { update: ['ops'] },
          stateMachine: {
            initial: 'queued',
            states: ['queued', 'running', 'done'],
            transitions: { queued: ['running'], running: ['done'] },
            onEnter: {
              running: () => {
                calls.push('onEnter')
              }
            }
          }
        }
      ],
      hooks: {
        beforeUpdate: () => {
          calls.push('beforeUpdate')
        },
        afterUpdate: () => {
          calls.push('afterUpdate')
        }
      }
    }
  ]
  const app = await buildCoreApp(t, { schemas })
  const ops = makeUser({ roles: ['ops'] })
  const id = (
    await app.inject({ method: 'POST', url: '/api/v1/jobs', headers: ops.headers, payload: { title: 'j' } })
  ).json()._id
  const svc = app.svc.services.get('jobs')
  const ctx = (u: { userId: string }, roles: string[]) => ({
    identity: { kind: 'user' as const, userId: u.userId, roles },
    surface: 'graphql' as const
  })
  await t.rejects(
    svc.transition(ctx(ops, ['user']), id, 'state', 'running'),
    { code: 'FORBIDDEN', statusCode: 403, details: { field: 'state' } },
    'update slot applies'
  )
  await t.rejects(svc.transition(ctx(ops, ['ops']), id, 'state', 'done'), {
    code: 'INVALID_TRANSITION',
    details: { current: 'queued', attempted: 'done', allowed: ['running'] }
  })
  await t.rejects(svc.transition(ctx(ops, ['ops']), id, 'title', 'x'), { code: 'VALIDATION' }, 'only state fields')
  await t.rejects(
    svc.transition(ctx(makeUser(), ['ops']), id, 'state', 'running'),
    { code: 'NOT_FOUND', statusCode: 404 },
    'another tenant'
  )
  const rec = await svc.transition(ctx(ops, ['ops']), id, 'state', 'running')
  t.match(rec, { state: 'running', availableTransitions: ['done'] })
  t.same(calls, ['onEnter'], 'no beforeUpdate/afterUpdate on the transition operation')
})
