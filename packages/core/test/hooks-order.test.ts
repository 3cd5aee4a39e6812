import t from 'tap'
import { buildCoreApp, makeUser } from './helper.js'

type Args = Record<string, any>

function hookSchema (calls: Array<[string, Args]>, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const rec = (name: string) => (a: Args) => {
    calls.push([name, structuredClone({ ...a, req: a.req === undefined ? undefined : 'req', schema: a.schema?.path })])
  }
  return {
    path: 'orders',
    fields: [
      { name: 'title', type: String, required: true },
      { name: 'note', type: String },
      { name: 'secret', type: String, acl: { read: ['admin'], update: ['admin'] } },
      {
        name: 'status',
        type: String,
        stateMachine: {
          initial: 'new',
          states: ['new', 'paid', 'shipped'],
          transitions: { new: ['paid'], paid: ['shipped'], shipped: [] }
        }
      }
    ],
    hooks: {
      beforeCreate: (a: Args) => {
        rec('beforeCreate')(a)
        // A hook trying to take over ownership, ids and timestamps: all re-stamped afterwards.
        return {
          ...a.input,
          title: `${String(a.input.title)}!`,
          userId: 'intruder',
          accountId: 'evil',
          _id: '65f0000000000000000000aa',
          createdAt: '1999-01-01'
        }
      },
      afterCreate: rec('afterCreate'),
      beforeUpdate: (a: Args) => {
        rec('beforeUpdate')(a)
        a.input.note = 'touched' // mutating in place and returning nothing keeps the (mutated) input
        if (a.input.title === 'ship-it') a.input.status = 'shipped'
        if (a.input.title === 'steal') return { ...a.input, userId: 'intruder' }
      },
      afterUpdate: rec('afterUpdate'),
      beforeDelete: rec('beforeDelete'),
      afterDelete: rec('afterDelete'),
      ...extra
    }
  }
}

t.test('hooks run in the spec order with the spec arguments', async (t) => {
  const calls: Array<[string, Args]> = []
  const app = await buildCoreApp(t, { schemas: [hookSchema(calls)] })
  const u = makeUser({ account_id: 'org-1', email: 'u@example.test' })
  let id = ''
  {
    const res = await app.inject({
      method: 'POST',
      url: '/api/v1/orders',
      headers: u.headers,
      payload: { title: 'a', secret: 's' }
    })
    t.equal(res.statusCode, 201, 'POST /orders')
    id = res.json()._id
    const [name, a] = calls[0]
    t.equal(name, 'beforeCreate')
    t.match(
      a.input,
      { title: 'a', userId: u.userId, accountId: 'org-1', status: 'new' },
      'input is tenant-stamped and has the initial state'
    )
    t.same(
      a.user,
      { user_id: u.userId, email: 'u@example.test', roles: ['user'], account_id: 'org-1' },
      'user is the JWT identity'
    )
    t.equal(a.req, 'req', 'req on REST')
    t.equal(a.schema, 'orders', 'schema is the definition')
    t.match(
      res.json(),
      { title: 'a!', userId: u.userId, accountId: 'org-1' },
      'returned object replaced the input; ownership re-stamped'
    )
    t.not(res.json()._id, '65f0000000000000000000aa', 'hook cannot choose the _id')
    t.not(res.json().createdAt.slice(0, 4), '1999', 'hook cannot choose createdAt')
    t.equal(calls[1][0], 'afterCreate')
    t.match(
      calls[1][1].record,
      { _id: id, title: 'a!', availableTransitions: ['paid'] },
      'afterCreate gets the presented record'
    )
    t.notOk('secret' in calls[1][1].record, 'projected through the actor read ACL')
  }
  {
    calls.length = 0
    const res = await app.inject({
      method: 'PUT',
      url: `/api/v1/orders/${id}`,
      headers: u.headers,
      payload: { secret: 'x' }
    })
    t.equal(res.statusCode, 403, 'ACL writability is checked before beforeUpdate')
    t.equal(calls.length, 0, 'no hook ran for a refused write')
  }
  {
    const res = await app.inject({
      method: 'PUT',
      url: `/api/v1/orders/${id}`,
      headers: u.headers,
      payload: { status: 'paid' }
    })
    t.equal(res.statusCode, 200)
    t.match(res.json(), { status: 'paid', note: 'touched' }, 'in-place changes of undefined-returning hooks are kept')
    const [name, a] = calls[0]
    t.equal(name, 'beforeUpdate')
    t.same(a.input, { status: 'paid' }, 'input is the validated payload')
    t.match(a.current, { _id: id, status: 'new', secret: 's' }, 'current is the stored document')
    t.equal(calls[1][0], 'afterUpdate')
    t.match(calls[1][1], { record: { status: 'paid' }, previous: { status: 'new' } })
    t.notOk('secret' in calls[1][1].previous, 'previous projected like record')
  }
  {
    calls.length = 0
    const res = await app.inject({
      method: 'PUT',
      url: `/api/v1/orders/${id}`,
      headers: u.headers,
      payload: { title: 'ship-it', status: 'paid' }
    })
    t.equal(res.statusCode, 200, 'hook moves the state paid → shipped: validated after the hook, allowed')
    t.equal(res.json().status, 'shipped')
    const res2 = await app.inject({
      method: 'PUT',
      url: `/api/v1/orders/${id}`,
      headers: u.headers,
      payload: { title: 'ship-it' }
    })
    t.equal(res2.statusCode, 200, 'shipped → shipped is no change')
  }
  {
    const id2 = (
      await app.inject({ method: 'POST', url: '/api/v1/orders', headers: u.headers, payload: { title: 'b' } })
    ).json()._id
    const res = await app.inject({
      method: 'PUT',
      url: `/api/v1/orders/${id2}`,
      headers: u.headers,
      payload: { title: 'ship-it' }
    })
    t.equal(res.statusCode, 400, 'a state change made by beforeUpdate still goes through the transition table')
    t.match(res.json(), {
      error: { code: 'INVALID_TRANSITION', details: { current: 'new', attempted: 'shipped', allowed: ['paid'] } }
    })
    const res2 = await app.inject({
      method: 'PUT',
      url: `/api/v1/orders/${id2}`,
      headers: u.headers,
      payload: { title: 'steal' }
    })
    t.equal(res2.statusCode, 200)
    t.equal(res2.json().userId, u.userId, 'beforeUpdate cannot change userId')
    const stored = await app.svc.db.collection('orders').countDocuments({ userId: 'intruder' })
    t.equal(stored, 0)
  }
  {
    calls.length = 0
    await app.inject({
      method: 'PUT',
      url: '/api/v1/orders',
      headers: u.headers,
      payload: { filter: {}, record: { note: 'bulk' } }
    })
    t.equal(calls.length, 0, 'bulk PUT fires no hooks')
    const res = await app.inject({ method: 'DELETE', url: `/api/v1/orders/${id}`, headers: u.headers })
    t.equal(res.statusCode, 200)
    t.same(
      calls.map((c) => c[0]),
      ['beforeDelete', 'afterDelete']
    )
    t.match(calls[0][1].current, { _id: id, secret: 's' }, 'beforeDelete gets the stored document')
    t.match(calls[1][1].record, { _id: id })
    t.notOk('secret' in calls[1][1].record)
  }
  {
    calls.length = 0
    const other = makeUser()
    const res = await app.inject({ method: 'DELETE', url: `/api/v1/orders/${id}`, headers: other.headers })
    t.equal(res.statusCode, 404, 'another tenant cannot reach the hooks with a borrowed id')
    t.equal(calls.length, 0)
  }
})

t.test('hooks fire on service calls from other surfaces with req undefined', async (t) => {
  const calls: Array<[string, Args]> = []
  const app = await buildCoreApp(t, { schemas: [hookSchema(calls)] })
  const u = makeUser()
  const svc = app.svc.services.get('orders')
  await svc.create(
    { identity: { kind: 'user', userId: u.userId, roles: ['user'] }, surface: 'graphql' },
    { title: 'g' }
  )
  t.equal(calls[0][0], 'beforeCreate')
  t.equal(calls[0][1].req, undefined, 'req is undefined off HTTP')
})

t.test('beforeCreate cannot pick a non-initial state', async (t) => {
  const schemas = [
    {
      path: 'orders',
      fields: [
        { name: 'title', type: String },
        {
          name: 'status',
          type: String,
          stateMachine: { initial: 'new', states: ['new', 'paid'], transitions: { new: ['paid'] } }
        }
      ],
      hooks: {
        beforeCreate: ({ input }: Args) =>
          input.title === 'skip' ? { ...input, status: 'paid' } : { title: input.title }
      }
    }
  ]
  const app = await buildCoreApp(t, { schemas })
  const u = makeUser()
  const res = await app.inject({
    method: 'POST',
    url: '/api/v1/orders',
    headers: u.headers,
    payload: { title: 'skip' }
  })
  t.equal(res.statusCode, 400)
  t.match(res.json(), {
    error: { code: 'INVALID_TRANSITION', details: { current: null, attempted: 'paid', allowed: ['new'] } }
  })
  const res2 = await app.inject({
    method: 'POST',
    url: '/api/v1/orders',
    headers: u.headers,
    payload: { title: 'drop' }
  })
  t.equal(res2.statusCode, 201)
  t.equal(res2.json().status, 'new', 'a hook dropping the state field gets the initial state back')
})
