import t from 'tap'
import type { RecordEvent } from '../src/index.js'
import { buildCoreApp, makeUser } from './helper.js'

t.test('20 parallel transitions from the same state: exactly one lands', async (t) => {
  const app = await buildCoreApp(t)
  const u = makeUser()
  const transitioned: RecordEvent[] = []
  app.svc.events.on('deals.transitioned', (e: RecordEvent) => {
    transitioned.push(e)
  })
  const id = (
    await app.inject({
      method: 'POST',
      url: '/api/v1/deals',
      headers: u.headers,
      payload: { title: 'race', amount: 1 }
    })
  ).json()._id
  await app.inject({
    method: 'PUT',
    url: `/api/v1/deals/${id}`,
    headers: u.headers,
    payload: { approval: 'submitted' }
  })
  transitioned.length = 0
  const targets = Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? 'approved' : 'rejected'))
  const answers = await Promise.all(
    targets.map(
      async (approval) =>
        await app.inject({ method: 'PUT', url: `/api/v1/deals/${id}`, headers: u.headers, payload: { approval } })
    )
  )
  const ok = answers.filter((r) => r.statusCode === 200)
  t.ok(ok.length >= 1, 'someone won')
  const winner = ok[0].json().approval
  // A request that arrives after the winner and names the same state is a no-op PUT (200, no
  // transition); every other answer must be a refusal naming the winning state.
  t.ok(
    ok.every((r) => r.json().approval === winner),
    'every 200 reports the same, winning state'
  )
  for (const r of answers.filter((x) => x.statusCode !== 200)) {
    t.ok(r.statusCode === 409 || r.statusCode === 400, `loser answered ${r.statusCode}`)
    const { code, details } = r.json().error
    t.ok(code === 'CONFLICT' || code === 'INVALID_TRANSITION', code)
    t.equal(details.current, winner, 'loser is told the state that won')
  }
  t.equal(transitioned.length, 1, 'exactly one transition landed (one transitioned event)')
  const stored = await app.svc.db.collection('deals').findOne({})
  t.equal(stored?.approval, winner, 'the stored state is the winner')
})

t.test(
  'the transition check and the write are one conditional update (a writer sneaking in between loses nothing)',
  async (t) => {
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
              states: ['open', 'closed', 'archived'],
              transitions: { open: ['closed', 'archived'], closed: ['open'], archived: [] }
            }
          }
        ],
        hooks: {
          // Runs after `current` was read and before the write: another request commits meanwhile.
          beforeUpdate: async ({ current }: { current: { _id: string } }) => {
            const { ObjectId } = await import('mongodb')
            await app.svc.db
              .collection('tickets')
              .updateOne({ _id: new ObjectId(current._id) }, { $set: { status: 'archived' } })
          }
        }
      }
    ]
    const app = await buildCoreApp(t, { schemas })
    const u = makeUser()
    const id = (
      await app.inject({ method: 'POST', url: '/api/v1/tickets', headers: u.headers, payload: { title: 't' } })
    ).json()._id
    const res = await app.inject({
      method: 'PUT',
      url: `/api/v1/tickets/${id}`,
      headers: u.headers,
      payload: { status: 'closed' }
    })
    t.equal(res.statusCode, 409, 'validated against a state that changed before the write: refused')
    t.same(res.json().error, {
      code: 'CONFLICT',
      message: 'status changed concurrently; read the record and retry',
      details: { field: 'status', current: 'archived', attempted: 'closed', expected: 'open' }
    })
    t.equal((await app.svc.db.collection('tickets').findOne({}))?.status, 'archived', 'the sneaked-in state stands')
    const other = makeUser()
    const res2 = await app.inject({
      method: 'PUT',
      url: `/api/v1/tickets/${id}`,
      headers: other.headers,
      payload: { status: 'closed' }
    })
    t.equal(res2.statusCode, 404, 'another tenant gets 404, not a conflict naming the state')
  }
)

t.test('20 parallel requests to 20 different targets from one state: exactly one 200', async (t) => {
  const targets = Array.from({ length: 20 }, (_, i) => `s${i}`)
  const schemas = [
    {
      path: 'flows',
      fields: [
        {
          name: 'state',
          type: String,
          stateMachine: { initial: 'start', states: ['start', ...targets], transitions: { start: targets } }
        }
      ]
    }
  ]
  const app = await buildCoreApp(t, { schemas })
  const u = makeUser()
  const id = (await app.inject({ method: 'POST', url: '/api/v1/flows', headers: u.headers, payload: {} })).json()._id
  const answers = await Promise.all(
    targets.map(
      async (state) =>
        await app.inject({ method: 'PUT', url: `/api/v1/flows/${id}`, headers: u.headers, payload: { state } })
    )
  )
  const ok = answers.filter((r) => r.statusCode === 200)
  t.equal(ok.length, 1, 'exactly one success')
  const winner = ok[0].json().state
  t.ok(
    answers.every((r) => r.statusCode === 200 || r.json().error.details.current === winner),
    'every loser names the winning state'
  )
  t.equal((await app.svc.db.collection('flows').findOne({}))?.state, winner)
})
