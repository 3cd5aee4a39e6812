import t from 'tap'
import { getFailPointTestDb, getStandaloneTestDb, getTestDb } from '../src/index.js'

t.test('getTestDb gives a unique database per call and drops it in teardown', async (t) => {
  // Held open across the inner test so the server (an embedded devdb stops with its last
  // database) is still there to be asked whether the inner databases were dropped.
  const observer = await getTestDb(t)
  t.match(observer.kind, /^(mongodb-uri|docker|devdb)$/, `server kind ${observer.kind}`)
  const names: string[] = []
  await t.test('inner', async (t) => {
    const a = await getTestDb(t)
    const b = await getTestDb(t)
    t.not(a.db.databaseName, b.db.databaseName, 'unique names')
    await a.db.collection('x').insertOne({ n: 1 })
    await b.db.collection('y').insertOne({ n: 2 })
    t.equal(await a.db.collection('x').countDocuments(), 1)
    t.equal(await b.db.collection('x').countDocuments(), 0, 'isolated')
    t.match(a.uri, new RegExp(`/${a.db.databaseName}`), 'uri names the database')
    const listed = (await observer.client.db().admin().listDatabases()).databases.map((d) => d.name)
    t.ok(listed.includes(a.db.databaseName), 'the database exists while the test runs')
    names.push(a.db.databaseName, b.db.databaseName)
  })
  const listed = (await observer.client.db().admin().listDatabases()).databases.map((d) => d.name)
  t.same(
    names.filter((n) => listed.includes(n)),
    [],
    'both dropped after teardown'
  )
})

t.test('getStandaloneTestDb gives a database on a standalone server of its own', async (t) => {
  const { db, uri } = await getStandaloneTestDb(t)
  const hello = await db.command({ hello: 1 })
  t.equal(hello.setName, undefined, 'no replica set')
  t.match(uri, new RegExp(`/${db.databaseName}$`))
  const session = db.client.startSession()
  session.startTransaction()
  await t.rejects(db.collection('x').insertOne({ n: 1 }, { session }), /not support/, 'transactions refused')
  await session.endSession()
})

t.test('getFailPointTestDb gives a replica set of its own that fails commands on request', async (t) => {
  const { db, client } = await getFailPointTestDb(t)
  t.equal((await db.command({ hello: 1 })).setName, 'rs0', 'transactions work there')
  await client
    .db('admin')
    .command({ configureFailPoint: 'failCommand', mode: { times: 1 }, data: { failCommands: ['find'], errorCode: 2 } })
  await t.rejects(db.collection('x').find().toArray(), { code: 2 }, 'the next find fails')
  t.same(await db.collection('x').find().toArray(), [], 'then it is off')
})
