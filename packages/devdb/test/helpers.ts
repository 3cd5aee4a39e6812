/** Shared test setup: an in-memory devdb and a connected official driver client per test file. */
import { MongoClient, type Db } from 'mongodb'
import { startDevDb, type DevDb, type DevDbOptions } from '@svc/devdb'

export interface Harness { server: DevDb, client: MongoClient, db: Db }

export async function setup (t: { teardown: (fn: () => Promise<void>) => void }, opts: DevDbOptions = {}, dbName = 'test'): Promise<Harness> {
  const server = await startDevDb({ port: 0, ...opts })
  const client = new MongoClient(server.uri, { serverSelectionTimeoutMS: 5000 })
  await client.connect()
  t.teardown(async () => {
    await client.close()
    await server.stop()
  })
  return { server, client, db: client.db(dbName) }
}

/** Runs fn and returns the thrown error's MongoDB fields (fails the test if nothing is thrown). */
export async function mongoError (fn: () => Promise<unknown>): Promise<{ code?: number, codeName?: string, message: string, [k: string]: unknown }> {
  try {
    await fn()
  } catch (e) {
    const err = e as { code?: number, codeName?: string, message: string }
    return err
  }
  throw new Error('expected the operation to fail')
}
