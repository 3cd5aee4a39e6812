/**
 * mongosh (the npm package, a dev dependency) against devdb: db.stats(), db.coll.stats(),
 * rs.status(), db.currentOp() and db.adminCommand({ buildInfo: 1 }) answer with the values of a
 * collection this test filled — and currentOp shows an operation another client has in flight.
 */
import t from 'tap'
import { execFile } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createRequire } from 'node:module'
import { BSON, MongoClient, type Document } from 'mongodb'
import { setup, type SpecDoc } from './fixtures/devdb-harness.js'

const mongoshBin = join(createRequire(import.meta.url).resolve('mongosh/package.json'), '..', 'bin', 'mongosh.js')
const h = await setup(t, { enableTestCommands: true }, 'shop')
const orders = Array.from({ length: 120 }, (_, i) => ({
  _id: i,
  sku: `sku-${i % 9}`,
  qty: i % 5,
  note: 'n'.repeat(i % 40)
}))
await h.db.collection<SpecDoc>('orders').insertMany(orders)
await h.db.collection<SpecDoc>('orders').createIndex({ sku: 1 })
const dataSize = orders.reduce((n, d) => n + BSON.calculateObjectSize(d), 0)
const home = await mkdtemp(join(tmpdir(), 'devdb-mongosh-'))
t.teardown(async () => await rm(home, { recursive: true, force: true }))

/** Runs a mongosh script against devdb and parses the EJSON it prints. */
async function mongosh (script: string): Promise<Document> {
  const args = [
    mongoshBin,
    h.server.uri,
    '--quiet',
    '--norc',
    '--eval',
    `print(EJSON.stringify((() => { ${script} })(), { relaxed: false }))`
  ]
  const stdout = await new Promise<string>((resolve, reject) => {
    execFile(
      process.execPath,
      args,
      { env: { ...process.env, HOME: home, MONGOSH_NO_TELEMETRY: '1' }, timeout: 120_000 },
      (err, out, stderr) => {
        if (err !== null) reject(new Error(`mongosh failed: ${err.message}\n${stderr}`))
        else resolve(out)
      }
    )
  })
  return BSON.EJSON.parse(stdout.trim().split('\n').pop() ?? '') as Document
}

t.test('db.stats() and db.coll.stats() report the filled collection', async (t) => {
  const out = await mongosh(
    "const shop = db.getSiblingDB('shop'); return { db: shop.stats(), coll: shop.orders.stats() }"
  )
  t.match(out.db, { db: 'shop', collections: 1, objects: 120, dataSize, indexes: 2, ok: 1 })
  t.match(out.coll, {
    ns: 'shop.orders',
    count: 120,
    size: dataSize,
    storageSize: dataSize,
    nindexes: 2,
    avgObjSize: Math.floor(dataSize / 120),
    sharded: false,
    ok: 1
  })
  t.same(Object.keys(out.coll.indexSizes).sort(), ['_id_', 'sku_1'])
  t.ok(out.coll.totalIndexSize > 0)
})

t.test('rs.status() shows the one PRIMARY; buildInfo answers 7.0', async (t) => {
  const out = await mongosh(
    'return { rs: rs.status(), build: db.adminCommand({ buildInfo: 1 }), version: db.version() }'
  )
  t.match(out.rs, { set: 'rs0', myState: 1, ok: 1 })
  t.match(out.rs.members, [{ stateStr: 'PRIMARY', health: 1, self: true, name: `127.0.0.1:${h.server.port}` }])
  t.match(out.build, { version: '7.0.0', versionArray: [7, 0, 0, 0], ok: 1 })
  t.equal(out.version, '7.0.0')
})

t.test('db.currentOp() lists an insert another client has in flight', async (t) => {
  const app = new MongoClient(h.server.uri, { appName: 'checkout' })
  t.teardown(async () => await app.close())
  // Held until killOp ends it: long enough for mongosh to start on a loaded CI box (15 s was not).
  await h.client.db('admin').command({
    configureFailPoint: 'failCommand',
    mode: { times: 1 },
    data: { failCommands: ['insert'], blockConnection: true, blockTimeMS: 60_000, appName: 'checkout' }
  })
  const insert = app
    .db('shop')
    .collection<SpecDoc>('orders')
    .insertOne({ _id: 999, sku: 'late' })
    .then(
      () => undefined,
      (e: Error) => e
    )
  for (
    let i = 0;
    i < 200 && (await h.client.db('admin').command({ currentOp: 1, appName: 'checkout' })).inprog.length === 0;
    i++
  ) {
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  const out = await mongosh("return db.currentOp({ appName: 'checkout' })")
  t.equal(out.ok, 1)
  t.equal(out.inprog.length, 1)
  t.match(out.inprog[0], {
    active: true,
    op: 'insert',
    ns: 'shop.orders',
    appName: 'checkout',
    command: { insert: 'orders' }
  })
  t.type(out.inprog[0].opid, 'number')
  const killed = await mongosh(`return db.killOp(${Number(out.inprog[0].opid)})`)
  t.equal(killed.info, 'attempting to kill op')
  t.match(await insert, { code: 11601, codeName: 'Interrupted' }, 'the insert was interrupted')
  t.equal(await h.db.collection<SpecDoc>('orders').countDocuments({ _id: 999 }), 0, 'and did not happen')
})
