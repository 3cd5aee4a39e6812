import { randomBytes } from 'node:crypto'
import { MongoClient, type Db } from 'mongodb'
import { acquireServer, releaseServer, type TestServerKind } from './server.js'
import { startEmbeddedDevDb, type EmbeddedDevDbOptions } from './devdb.js'

/** The slice of a tap `Test` the helpers need; keeps testkit free of a tap dependency. */
export interface Teardownable {
  teardown(fn: () => unknown): void
}

export interface TestDb {
  db: Db
  client: MongoClient
  uri: string
  /** The server behind it: `MONGODB_URI`, a Docker `mongo:7` replica set, or the embedded devdb. */
  kind: TestServerKind
}

/** Unique per call so test files (and tests inside one file) can run in parallel on one server. */
export function uniqueDbName (prefix = 'svc_test'): string {
  return `${prefix}_${process.pid}_${randomBytes(4).toString('hex')}`
}

/**
 * A fresh, uniquely named database, dropped (and its client closed) in teardown, on the server
 * `acquireServer()` picks: `MONGODB_URI` (its database name is ignored), a Docker `mongo:7`
 * replica set, or an in-process devdb.
 */
export async function getTestDb (t: Teardownable, opts: { name?: string } = {}): Promise<TestDb> {
  const { uri: serverUri, kind } = await acquireServer()
  const client = new MongoClient(serverUri, { serverSelectionTimeoutMS: 10_000 })
  try {
    await client.connect()
  } catch (err) {
    await releaseServer(kind)
    throw err
  }
  const db = client.db(opts.name ?? uniqueDbName())
  t.teardown(async () => {
    try {
      await db.dropDatabase()
    } finally {
      await client.close()
      await releaseServer(kind)
    }
  })
  return { db, client, uri: withDbName(serverUri, db.databaseName), kind }
}

/**
 * A database on a devdb of its own started with test commands enabled, stopped in teardown: for
 * tests that make the server fail commands (`configureFailPoint` with `failCommand`). Fail points
 * are server-wide, so such a test never shares its server with other test files.
 */
export async function getFailPointTestDb (t: Teardownable): Promise<TestDb> {
  return await ownDevDb(t, { enableTestCommands: true })
}

/**
 * A database on a standalone server — an in-process devdb of its own with `replSet: false`,
 * which runs no transactions — stopped in teardown: for code that must behave differently
 * there (whatever server `getTestDb` picks).
 */
export async function getStandaloneTestDb (t: Teardownable): Promise<TestDb> {
  return await ownDevDb(t, { replSet: false })
}

async function ownDevDb (t: Teardownable, opts: EmbeddedDevDbOptions): Promise<TestDb> {
  const devdb = await startEmbeddedDevDb(opts)
  const client = new MongoClient(devdb.uri, { serverSelectionTimeoutMS: 10_000 })
  t.teardown(async () => {
    await client.close()
    await devdb.stop()
  })
  await client.connect()
  const db = client.db(uniqueDbName())
  return { db, client, uri: withDbName(devdb.uri, db.databaseName), kind: 'devdb' }
}

/** The server URI with its path replaced by `name`, for code that connects by URI itself. */
function withDbName (uri: string, name: string): string {
  const m = /^(mongodb(?:\+srv)?:\/\/[^/?]+)(\/[^?]*)?(\?.*)?$/.exec(uri)
  if (m == null) return uri
  return `${m[1]}/${name}${m[3] ?? ''}`
}
