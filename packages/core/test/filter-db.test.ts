import t from 'tap'
import Fastify from 'fastify'
import { MongoClient, type CommandStartedEvent } from 'mongodb'
import { getTestDb } from '@svc/testkit'
import svcCore from '../src/index.js'
import { EXAMPLE_SCHEMA_DIR, JWT_SECRET, makeUser } from './helper.js'

t.test('refused filters never reach the database; accepted ones arrive cast', async (t) => {
  const { uri } = await getTestDb(t)
  // A second client with command monitoring on, so the test sees exactly what is sent.
  const client = new MongoClient(uri, { monitorCommands: true })
  await client.connect()
  t.teardown(async () => await client.close())
  const commands: CommandStartedEvent[] = []
  // The users lookup is authentication's (passwordChangedAt of the bearer's user), not the query's.
  client.on('commandStarted', (e) => {
    if (
      (e.commandName === 'find' || e.commandName === 'aggregate' || e.commandName === 'update') &&
      e.command[e.commandName] !== 'users'
    ) {
      commands.push(e)
    }
  })
  const app = Fastify()
  await app.register(svcCore, { db: client.db(), jwtSecret: JWT_SECRET, schemaDir: EXAMPLE_SCHEMA_DIR })
  t.teardown(async () => await app.close())
  await app.ready()
  const u = makeUser()

  const refused = [
    'amount={"$where":"sleep(1000)"}',
    'title={"$expr":{"$eq":[1,1]}}',
    'title={"$function":{"body":"return true","args":[],"lang":"js"}}',
    '$where=1',
    'title.$ne=x',
    'metadata.x=1',
    'amount={"$jsonSchema":{}}'
  ]
  for (const query of refused) {
    commands.length = 0
    const res = await app.inject({ method: 'GET', url: `/api/v1/deals?${encodeURI(query)}`, headers: u.headers })
    t.equal(res.statusCode, 400, `GET ?${query}`)
    t.equal(commands.length, 0, `nothing sent for ${query}`)
  }
  {
    commands.length = 0
    const res = await app.inject({
      method: 'PUT',
      url: '/api/v1/deals',
      headers: u.headers,
      payload: { filter: { $where: '1' }, record: { stage: 'won' } }
    })
    t.equal(res.statusCode, 400, 'bulk PUT with $where')
    t.equal(commands.length, 0, 'bulk filter refused before the database')
  }
  {
    commands.length = 0
    const res = await app.inject({
      method: 'GET',
      url: `/api/v1/deals?${encodeURI('amount={"$gte":"10"}&closeDate={"$lt":"2025-01-01"}')}`,
      headers: u.headers
    })
    t.equal(res.statusCode, 200)
    const find = commands.find((c) => c.commandName === 'find')
    t.ok(find, 'find sent')
    const filter = find!.command.filter
    t.same(filter.amount, { $gte: 10 }, 'number cast before sending')
    t.type(filter.closeDate.$lt, Date, 'date cast before sending')
    t.equal(filter.userId, u.userId, 'tenant filter present')
    const sort = find!.command.sort
    t.same(
      sort instanceof Map ? [...sort.entries()] : Object.entries(sort),
      [
        ['createdAt', -1],
        ['_id', -1]
      ],
      'default sort with tiebreaker'
    )
  }
})
