import { randomBytes } from 'node:crypto'
import { MongoClient, type Db } from 'mongodb'

/** The slice of a tap `Test` the helpers need; keeps testkit free of a tap dependency. */
export interface Teardownable {
  teardown (fn: () => unknown): void
}

export interface TestDb {
  db: Db
  client: MongoClient
  uri: string
}

interface DevDbHandle { uri: string, stop (): Promise<void> }

// One embedded devdb per test process: tap runs every test file in its own process, so this
// is one server per file, started lazily and stopped when the last database of the file is dropped.
let devdb: Promise<DevDbHandle> | null = null
let users = 0

async function acquireServerUri (): Promise<string> {
  const external = process.env.MONGODB_URI
  if (external != null && external !== '') return external
  users++
  if (devdb == null) {
    devdb = import('@svc/devdb').then(async (mod) => await mod.startDevDb({ port: 0 }) as DevDbHandle)
    devdb.catch(() => { devdb = null })
  }
  return (await devdb).uri
}

async function releaseServer (): Promise<void> {
  if (process.env.MONGODB_URI != null && process.env.MONGODB_URI !== '') return
  users--
  if (users === 0 && devdb != null) {
    const handle = devdb
    devdb = null
    await (await handle).stop()
  }
}

/** Unique per call so test files (and tests inside one file) can run in parallel on one server. */
export function uniqueDbName (prefix = 'svc_test'): string {
  return `${prefix}_${process.pid}_${randomBytes(4).toString('hex')}`
}

/**
 * A fresh, uniquely named database, dropped (and its client closed) in teardown.
 * Uses `MONGODB_URI` when set (its database name is ignored), otherwise an in-process devdb.
 */
export async function getTestDb (t: Teardownable, opts: { name?: string } = {}): Promise<TestDb> {
  const serverUri = await acquireServerUri()
  const client = new MongoClient(serverUri, { serverSelectionTimeoutMS: 10_000 })
  try {
    await client.connect()
  } catch (err) {
    await releaseServer()
    throw err
  }
  const db = client.db(opts.name ?? uniqueDbName())
  t.teardown(async () => {
    try {
      await db.dropDatabase()
    } finally {
      await client.close()
      await releaseServer()
    }
  })
  return { db, client, uri: withDbName(serverUri, db.databaseName) }
}

/** The server URI with its path replaced by `name`, for code that connects by URI itself. */
function withDbName (uri: string, name: string): string {
  const m = /^(mongodb(?:\+srv)?:\/\/[^/?]+)(\/[^?]*)?(\?.*)?$/.exec(uri)
  if (m == null) return uri
  return `${m[1]}/${name}${m[3] ?? ''}`
}
