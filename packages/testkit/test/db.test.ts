import t from 'tap'
import { MongoClient } from 'mongodb'
import { getTestDb } from '../src/index.js'

t.test('getTestDb gives a unique database per call and drops it in teardown', async (t) => {
  let uri = ''
  let name = ''
  await t.test('inner', async (t) => {
    const a = await getTestDb(t)
    const b = await getTestDb(t)
    t.not(a.db.databaseName, b.db.databaseName, 'unique names')
    await a.db.collection('x').insertOne({ n: 1 })
    t.equal(await a.db.collection('x').countDocuments(), 1)
    t.equal(await b.db.collection('x').countDocuments(), 0, 'isolated')
    t.match(a.uri, new RegExp(`/${a.db.databaseName}`), 'uri names the database')
    uri = a.uri
    name = a.db.databaseName
  })
  if (process.env.MONGODB_URI != null) {
    const client = new MongoClient(uri)
    await client.connect()
    const dbs = await client.db().admin().listDatabases()
    t.notOk(dbs.databases.some((d) => d.name === name), 'dropped after teardown')
    await client.close()
  } else {
    t.pass('the embedded devdb stopped with the last database of the file')
  }
})
