import { openDatabase, type Database } from '../database.js'

/**
 * Admin commands use the same database selection as `svc start` (MONGODB_URI, else the embedded
 * database in DATA_DIR). The embedded database is single-process: stop the server first.
 */
export async function withAdminDatabase<T> (
  fn: (database: Database) => Promise<T>,
  env: NodeJS.ProcessEnv = process.env
): Promise<T> {
  const uri = env.MONGODB_URI?.trim()
  const database = await openDatabase({
    mongodbUri: uri === '' ? undefined : uri,
    dataDir: env.DATA_DIR?.trim() || './.data'
  })
  try {
    return await fn(database)
  } finally {
    await database.close()
  }
}
