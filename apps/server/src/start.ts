import type { FastifyInstance, FastifyServerOptions } from 'fastify'
import { buildServer } from './build-server.js'
import type { ServerConfig } from './config.js'
import { openDatabase, type Database } from './database.js'

export interface RunningServer {
  app: FastifyInstance
  database: Database
  url: string
  /** Stops accepting, drains the app, closes the client, stops the embedded database. */
  close(): Promise<void>
}

export async function startServer (
  config: ServerConfig,
  opts: { logger?: FastifyServerOptions['logger'] } = {}
): Promise<RunningServer> {
  const database = await openDatabase(config)
  let app: FastifyInstance | undefined
  try {
    app = await buildServer(config, { db: database.db, logger: opts.logger })
    await app.listen({ port: config.port, host: config.host })
  } catch (err) {
    // A port in use fails after the app started its timers and followers: stop them too.
    await app?.close()
    await database.close()
    throw err
  }
  const address = app.server.address()
  const port = typeof address === 'object' && address != null ? address.port : config.port
  const host = config.host.includes(':') ? `[${config.host}]` : config.host
  const url = `http://${host}:${port}`
  let closing: Promise<void> | null = null
  return {
    app,
    database,
    url,
    close: async () => {
      closing ??= (async () => {
        try {
          await app.close()
        } finally {
          await database.close()
        }
      })()
      await closing
    }
  }
}
