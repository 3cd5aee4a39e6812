import t from 'tap'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { FastifyInstance } from 'fastify'
import { getStandaloneTestDb, getTestDb, signToken, type Teardownable } from '@svc/testkit'
import { buildServer } from '../src/build-server.js'
import { loadConfig } from '../src/config.js'
import { workspace } from './fixtures/workspace.js'

// Issue 21: every bulk operation of every surface with every effect on — audit and a matching
// webhook subscription — leaves each record's audit row and its event. REST's bulk PUT and
// GraphQL's CreateMany, UpdateMany, UpdateOne and RemoveMany; MCP has no bulk tool (its writes
// are one record each). A CreateMany of two or more records answered INTERNAL before.

const SECRET = 'server-test-secret'

async function receiver (t: Teardownable): Promise<{ url: string; got: any[] }> {
  const got: any[] = []
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      got.push(JSON.parse(Buffer.concat(chunks).toString()))
      res.end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => {
    server.closeAllConnections()
    server.close()
  })
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, got }
}

async function until<T> (check: () => Promise<T | false> | T | false): Promise<T> {
  for (let i = 0; i < 600; i++) {
    const v = await check()
    if (v !== false) return v
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  throw new Error('condition not met in time')
}

const DEPLOYMENTS = [
  { name: 'replica set (transactions)', db: async (t: Teardownable) => (await getTestDb(t)).db },
  { name: 'standalone (write-ahead intents)', db: async (t: Teardownable) => (await getStandaloneTestDb(t)).db }
]

for (const d of DEPLOYMENTS) {
  t.test(`${d.name}: each bulk operation leaves every record's audit row and its event`, async (t) => {
    const { config } = loadConfig({
      NODE_ENV: 'test',
      JWT_SECRET: SECRET,
      SCHEMA_DIR: workspace().schemaDir,
      WEBHOOK_RETRY_SCHEDULE: '0.2'
    })
    if (config == null) throw new Error('test config invalid')
    const db = await d.db(t)
    const app: FastifyInstance = await buildServer(config, { db, logger: false })
    t.teardown(async () => await app.close())
    await app.ready()
    t.equal(app.svc.transactions, d.name.startsWith('replica'))
    const userId = '65f0000000000000000000b1'
    const headers = {
      authorization: `Bearer ${signToken({ user_id: userId, email: 'bulk@example.test', roles: ['user'] }, SECRET)}`
    }
    const rx = await receiver(t)
    t.equal(
      (
        await app.inject({
          method: 'POST',
          url: '/api/v1/webhooks',
          headers,
          payload: { events: ['notes.*'], url: rx.url }
        })
      ).statusCode,
      201
    )
    const gql = async (query: string): Promise<any> => {
      const res = await app.inject({ method: 'POST', url: '/graphql', headers, payload: { query } })
      const body = res.json()
      if (body.errors !== undefined) throw new Error(`${query}: ${JSON.stringify(body.errors)}`)
      return body.data
    }
    const audit = async (action: string): Promise<string[]> =>
      (await db.collection('audit_log').find({ action }).toArray()).map((r) => r.recordId).sort()
    const events = async (n: number): Promise<any[]> => await until(() => rx.got.length >= n && rx.got)

    // GraphQL CreateMany: three records, three `created` events with their own ids, three audit rows.
    const created = (
      await gql('mutation { notesCreateMany(records: [{ title: "a" }, { title: "b" }, { title: "c" }]) { recordIds } }')
    ).notesCreateMany.recordIds
    t.equal(created.length, 3, 'CreateMany of three records answers them')
    const ids = [...created].sort()
    let got = await events(3)
    t.same(
      got.map((e) => e.type),
      ['notes.created', 'notes.created', 'notes.created']
    )
    t.same(got.map((e) => e.recordId).sort(), ids, 'an event per record')
    t.equal(new Set(got.map((e) => e.id)).size, 3, 'each with its own event id')
    t.same(await audit('create'), ids, 'an audit row per record')

    // REST bulk PUT: one bulk event, an audit row per changed record.
    const put = await app.inject({
      method: 'PUT',
      url: '/api/v1/notes',
      headers,
      payload: { filter: { title: 'a' }, record: { published: true } }
    })
    t.same(put.json(), { numAffected: 1 }, 'PUT /api/v1/notes')
    got = await events(4)
    t.match(got[3], { type: 'notes.updated', numAffected: 1, filter: { title: 'a' } })
    t.equal((await audit('update')).length, 1)

    // GraphQL UpdateMany: every record, one bulk event, three audit rows.
    t.same(
      (await gql('mutation { notesUpdateMany(filter: {}, record: { published: false }) { numAffected } }'))
        .notesUpdateMany,
      { numAffected: 3 }
    )
    got = await events(5)
    t.match(got[4], { type: 'notes.updated', numAffected: 3 })
    t.equal((await audit('update')).length, 4, 'one more row per record')
    t.same(
      (await db.collection('audit_log').find({ action: 'update', 'after.published': false }).toArray())
        .map((r) => r.recordId)
        .sort(),
      ids
    )

    // GraphQL UpdateOne: one record's event with the record, one audit row.
    const one = (await gql('mutation { notesUpdateOne(filter: { title: "b" }, record: { title: "b2" }) { recordId } }'))
      .notesUpdateOne.recordId
    got = await events(6)
    t.match(got[5], { type: 'notes.updated', recordId: one, record: { title: 'b2' } })
    t.equal(
      (await db.collection('audit_log').find({ action: 'update', recordId: one, 'after.title': 'b2' }).toArray())
        .length,
      1
    )

    // GraphQL RemoveMany: one bulk `deleted` event, an audit row per record.
    t.same((await gql('mutation { notesRemoveMany(filter: {}) { numAffected } }')).notesRemoveMany, { numAffected: 3 })
    got = await events(7)
    t.match(got[6], { type: 'notes.deleted', numAffected: 3 })
    t.same(await audit('delete'), ids, 'an audit row per deleted record')

    await new Promise((resolve) => setTimeout(resolve, 300))
    t.equal(rx.got.length, 7, 'no event twice, none extra')
    t.equal(new Set(rx.got.map((e) => e.id)).size, 7)
    t.equal((await app.svc.eventLog.read(0, 100)).length, 7, 'the log holds exactly these events')
  })
}
