import { resolve } from 'node:path'
import { MongoClient, type Db } from 'mongodb'
import type { ServerConfig } from './config.js'

export const DEFAULT_DB_NAME = 'svc'

export interface Database {
  db: Db
  client: MongoClient
  /** `mongodb` for MONGODB_URI, `embedded` for the in-process devdb. */
  kind: 'mongodb' | 'embedded'
  /** Printable location (no credentials). */
  where: string
  close(): Promise<void>
}

/** The database name from the URI path (`mongodb://host/name?opts`), or null when absent. */
export function dbNameFromUri (uri: string): string | null {
  const m = /^mongodb(?:\+srv)?:\/\/[^/?]*\/([^?]*)/.exec(uri)
  const name = m?.[1] == null ? '' : decodeURIComponent(m[1])
  return name === '' ? null : name
}

function redactUri (uri: string): string {
  return uri.replace(/\/\/[^@/]*@/, '//***@')
}

/** Connects to MONGODB_URI, or starts the embedded devdb persisting to DATA_DIR. */
export async function openDatabase (config: Pick<ServerConfig, 'mongodbUri' | 'dataDir'>): Promise<Database> {
  if (config.mongodbUri !== undefined) {
    const client = new MongoClient(config.mongodbUri, { serverSelectionTimeoutMS: 10_000 })
    await client.connect()
    return {
      db: client.db(dbNameFromUri(config.mongodbUri) ?? DEFAULT_DB_NAME),
      client,
      kind: 'mongodb',
      where: redactUri(config.mongodbUri),
      close: async () => await client.close()
    }
  }
  // Loaded only when needed: a server on a real MongoDB never loads the development database.
  const { startDevDb } = await import('@svc/devdb')
  const devdb = await startDevDb({ dbPath: config.dataDir, port: 0 })
  const client = new MongoClient(devdb.uri, { serverSelectionTimeoutMS: 10_000 })
  try {
    await client.connect()
  } catch (err) {
    await devdb.stop()
    throw err
  }
  return {
    db: client.db(DEFAULT_DB_NAME),
    client,
    kind: 'embedded',
    where: `embedded database in ${resolve(config.dataDir)}`,
    async close () {
      try {
        await client.close()
      } finally {
        await devdb.stop()
      }
    }
  }
}
