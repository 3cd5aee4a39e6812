import type { FastifyInstance } from 'fastify'

const PING_TIMEOUT_MS = 2000

/** Readiness: 200 once the database answers a ping and the schema registry is loaded. */
export function healthRoute (app: FastifyInstance): void {
  app.get('/healthz', async (request, reply) => {
    const schemasLoaded = app.svc?.registry != null
    let database = false
    try {
      let timer: NodeJS.Timeout | undefined
      const timeout = new Promise<never>((_resolve, reject) => { timer = setTimeout(() => reject(new Error('ping timed out')), PING_TIMEOUT_MS) })
      try {
        await Promise.race([app.svc.db.command({ ping: 1 }), timeout])
      } finally {
        clearTimeout(timer)
      }
      database = true
    } catch (err) {
      request.log.warn({ err }, 'healthz: database ping failed')
    }
    const checks = { database, schemas: schemasLoaded }
    return await reply.code(database && schemasLoaded ? 200 : 503).send({ status: database && schemasLoaded ? 'ok' : 'unavailable', checks })
  })
}
