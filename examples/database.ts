// The example's database: MONGODB_URI when set, otherwise the embedded development database
// (in memory), the same fallback the reference server makes. Failures are one clear line.
import { MongoClient, type Db } from 'mongodb'
import { startDevDb } from '@svc/devdb'

export interface ExampleDatabase {
  db: Db
  /** Where the data lives, for the start-up line (no credentials). */
  where: string
  close(): Promise<void>
}

/** A start-up failure worth one line on stderr, not a stack. */
export class DatabaseUnavailableError extends Error {}

function redact (uri: string): string {
  return uri.replace(/\/\/[^@/]*@/, '//***@')
}

async function connect (uri: string, timeoutMs: number): Promise<MongoClient> {
  const client = new MongoClient(uri, { serverSelectionTimeoutMS: timeoutMs })
  try {
    return await client.connect()
  } catch (err) {
    await client.close().catch(() => {})
    throw err
  }
}

export async function openExampleDatabase (
  uri: string | undefined,
  opts: { timeoutMs?: number } = {}
): Promise<ExampleDatabase> {
  const timeoutMs = opts.timeoutMs ?? 5000
  if (uri !== undefined && uri !== '') {
    let client: MongoClient
    try {
      client = await connect(uri, timeoutMs)
    } catch (err) {
      throw new DatabaseUnavailableError(
        `cannot reach MongoDB at ${redact(uri)} within ${timeoutMs / 1000} s (${(err as Error).message}); unset MONGODB_URI to use the embedded database`
      )
    }
    return { db: client.db(), where: redact(uri), close: async () => await client.close() }
  }
  let devdb: Awaited<ReturnType<typeof startDevDb>>
  try {
    devdb = await startDevDb({ port: 0 })
  } catch (err) {
    throw new DatabaseUnavailableError(
      `MONGODB_URI is unset and the embedded database did not start (${(err as Error).message})`
    )
  }
  const client = await connect(devdb.uri, timeoutMs).catch(async (err: Error) => {
    await devdb.stop()
    throw new DatabaseUnavailableError(`the embedded database did not answer (${err.message})`)
  })
  return {
    db: client.db('example'),
    where: 'the embedded database, in memory (MONGODB_URI is unset; data is lost at exit)',
    async close () {
      try {
        await client.close()
      } finally {
        await devdb.stop()
      }
    }
  }
}
