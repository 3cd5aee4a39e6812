import t from 'tap'
import { DURABLE_MODES, buildApp, eventually, makeUser, subscribe } from './helper.js'
import { startReceiver, type Receiver } from './fixtures/receiver.js'

// Every record event, on both commit paths of core's durable effects.
for (const mode of DURABLE_MODES) {
  t.test(mode.name, async (t) => {
    const { app, db } = await buildApp(t, { core: { transactions: mode.transactions } })
    t.equal(app.svc.transactions, mode.name === 'transactions', `events commit through ${mode.name}`)
    const alice = makeUser()
    const bob = makeUser()

    async function call (
      method: 'POST' | 'PUT' | 'DELETE' | 'GET',
      url: string,
      user = alice,
      payload?: object
    ): Promise<any> {
      const res = await app.inject({
        method,
        url,
        headers: user.headers,
        ...(payload !== undefined ? { payload } : {})
      })
      if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`)
      return res.json()
    }

    /** Waits for `n` deliveries and a little longer (nothing else may come), then answers what `rx` got. */
    async function settled (rx: Receiver, n: number): Promise<any[]> {
      await rx.waitFor(n)
      await new Promise((resolve) => setTimeout(resolve, 250))
      return rx.received.map((r) => r.body)
    }

    t.test('every write through the service becomes its record event; reads emit nothing', async (t) => {
      const rx = await startReceiver(t)
      const rxBob = await startReceiver(t)
      await subscribe(app, alice, rx.url, ['contacts.*'])
      await subscribe(app, bob, rxBob.url, ['*'])
      const created = await call('POST', '/api/v1/contacts', alice, { name: 'Ada', salary: 10 })
      await call('GET', `/api/v1/contacts/${created._id as string}`)
      await call('GET', '/api/v1/contacts')
      await call('PUT', `/api/v1/contacts/${created._id as string}`, alice, { name: 'Ada L.' })
      await call('PUT', `/api/v1/contacts/${created._id as string}`, alice, { stage: 'won' })
      await call('DELETE', `/api/v1/contacts/${created._id as string}`)
      await call('POST', `/api/v1/contacts/${created._id as string}/restore`)
      const bodies = await settled(rx, 6)
      t.same(
        bodies.map((b) => b.type).sort(),
        [
          'contacts.created',
          'contacts.deleted',
          'contacts.transitioned',
          'contacts.updated',
          'contacts.updated',
          'contacts.updated'
        ],
        'created, 3× updated (edit, state PUT, restore), transitioned, deleted — no restored, nothing for reads'
      )
      t.equal(rx.received.length, 6, 'nothing else')
      const byType = (type: string): any[] => bodies.filter((b) => b.type === type)
      t.match(byType('contacts.created')[0], {
        version: 'v1',
        userId: alice.userId,
        recordId: created._id,
        record: { _id: created._id, name: 'Ada', stage: 'lead' }
      })
      t.equal(byType('contacts.created')[0].record.salary, undefined, 'salary projected away (subscriber lacks hr)')
      t.match(byType('contacts.transitioned')[0], { recordId: created._id, record: { stage: 'won' } })
      t.match(byType('contacts.deleted')[0].record, { _id: created._id, deletedAt: /^\d{4}-/ }, 'the tombstone')
      t.equal(new Set(bodies.map((b) => b.id)).size, 6, 'one event id per event')
      t.equal(rxBob.received.length, 0, "bob's * subscription sees none of alice's events")
      const head = await app.svc.eventLog.head()
      t.equal(
        (await db.collection('svc_event_consumers').findOne({ _id: 'webhooks' as never }))?.seq,
        head,
        'the fan-out checkpoint passed every event of the log'
      )
    })

    t.test('bulk update: one event with filter and numAffected', async (t) => {
      const u = makeUser()
      const rx = await startReceiver(t)
      await call('POST', '/api/v1/logs', u, { line: 'a' })
      await call('POST', '/api/v1/logs', u, { line: 'a' })
      await subscribe(app, u, rx.url, ['logs.updated'])
      await call('PUT', '/api/v1/logs', u, { filter: { line: 'a' }, record: { line: 'b' } })
      const [body] = await settled(rx, 1)
      t.match(body, { type: 'logs.updated', userId: u.userId, numAffected: 2, filter: { line: 'a' } })
      t.equal(body.record, undefined)
      t.equal(rx.received.length, 1)
    })

    t.test('hard delete (softDelete: false) delivers the removed record', async (t) => {
      const u = makeUser()
      const rx = await startReceiver(t)
      const log = await call('POST', '/api/v1/logs', u, { line: 'gone' })
      await subscribe(app, u, rx.url, ['logs.deleted'])
      await call('DELETE', `/api/v1/logs/${log._id as string}`, u)
      const [body] = await settled(rx, 1)
      t.match(body, { type: 'logs.deleted', recordId: log._id, record: { line: 'gone' } })
    })

    t.test('a refused write leaves no event', async (t) => {
      const u = makeUser()
      const rx = await startReceiver(t)
      await subscribe(app, u, rx.url, ['*'])
      const bad = await app.inject({
        method: 'POST',
        url: '/api/v1/contacts',
        headers: u.headers,
        payload: { name: 5 }
      })
      t.equal(bad.statusCode, 400)
      const c = await call('POST', '/api/v1/contacts', u, { name: 'x' })
      const wrong = await app.inject({
        method: 'PUT',
        url: `/api/v1/contacts/${c._id as string}`,
        headers: u.headers,
        payload: { stage: 'nope' }
      })
      t.ok(wrong.statusCode >= 400, 'invalid transition refused')
      const other = await app.inject({
        method: 'DELETE',
        url: `/api/v1/contacts/${c._id as string}`,
        headers: alice.headers
      })
      t.equal(other.statusCode, 404, "another tenant's delete")
      await settled(rx, 1)
      t.same(
        rx.received.map((r) => r.body.type),
        ['contacts.created'],
        'only the create'
      )
    })

    t.test('in-process subscribers still get the record events', async (t) => {
      const u = makeUser()
      const seen: any[] = []
      const listener = (e: any): void => {
        seen.push(e)
      }
      app.svc.events.on('logs.created', listener)
      t.teardown(() => app.svc.events.off('logs.created', listener))
      await call('POST', '/api/v1/logs', u, { line: 'in-process' })
      const e = await eventually(async () => seen.find((x) => x.userId === u.userId))
      t.match(e, { type: 'logs.created', record: { line: 'in-process' } })
    })
  })
}
