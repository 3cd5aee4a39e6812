import type { FastifyInstance } from 'fastify'
import { buildServer } from '../build-server.js'
import { formatProblems, loadConfig } from '../config.js'
import { withAdminDatabase } from './admin-db.js'

/** Where a schema command writes: stdout for results, stderr for the progress bar. */
export interface CommandIo {
  stdout: { write: (s: string) => unknown }
  stderr: { write: (s: string) => unknown }
  /** stderr is a terminal: a progress bar instead of JSON progress lines. */
  tty: boolean
}

export const processIo = (): CommandIo => ({
  stdout: process.stdout,
  stderr: process.stderr,
  tty: process.stderr.isTTY === true
})

/**
 * The reference app as `svc start` composes it (the same schemas, migrations and durable
 * effects: audit rows), opened for maintenance on the admin database: no start-up check, no
 * index builds and, since `ready()` is never called, no worker or timer.
 */
export async function withSchemaApp<T> (env: NodeJS.ProcessEnv, fn: (app: FastifyInstance) => Promise<T>): Promise<T> {
  const { config, problems } = loadConfig(env)
  if (config == null) {
    throw new Error(
      formatProblems(problems)
        .replace(/^svc: /, '')
        .trimEnd()
    )
  }
  return await withAdminDatabase(async ({ db }) => {
    const app = await buildServer(config, { db, logger: false, maintenance: true })
    try {
      return await fn(app)
    } finally {
      await app.close()
    }
  }, env)
}
