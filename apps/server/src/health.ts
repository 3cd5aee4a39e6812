import type { FastifyInstance } from 'fastify'
import { documented, DOCUMENTED, UNREACHABLE_DRIVER_ERRORS } from '@svc/core/kit'
import type { Db } from 'mongodb'

const PROBE_TIMEOUT_MS = 2000
/** Probe results are reused this long, so a flood of /healthz calls costs at most one write a second. */
const PROBE_REUSE_MS = 1000
export const HEALTH_COLLECTION = 'svc_health'

export type DatabaseState = 'ok' | 'unreachable' | 'refuses-writes'

/**
 * A ping proves only that the server answers; a write proves it can still take one (a full disk,
 * a failed journal, a node that is no longer primary all answer pings). So the probe is a tiny
 * upsert on its own collection, bounded in time.
 */
async function probe (db: Db): Promise<DatabaseState> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<'unreachable'>((resolve) => {
    timer = setTimeout(() => resolve('unreachable'), PROBE_TIMEOUT_MS)
  })
  const write = db
    .collection<{ _id: string; at: Date; probes: number }>(HEALTH_COLLECTION)
    .updateOne(
      { _id: 'probe' },
      { $set: { at: new Date() }, $inc: { probes: 1 } },
      { upsert: true, maxTimeMS: PROBE_TIMEOUT_MS }
    )
    .then(
      (): DatabaseState => 'ok',
      (err: Error): DatabaseState => (UNREACHABLE_DRIVER_ERRORS.has(err.name) ? 'unreachable' : 'refuses-writes')
    )
  try {
    return await Promise.race([write, timeout])
  } finally {
    clearTimeout(timer)
  }
}

/** Concurrent and back-to-back callers share one probe (see PROBE_REUSE_MS). */
function sharedProbe (db: Db): () => Promise<DatabaseState> {
  let current: Promise<DatabaseState> | null = null
  let settledAt = 0
  return async () => {
    if (current == null || (settledAt !== 0 && Date.now() - settledAt >= PROBE_REUSE_MS)) {
      settledAt = 0
      const p = probe(db)
      current = p
      void p.then(() => {
        if (current === p) settledAt = Date.now()
      })
    }
    return await current
  }
}

const MESSAGES: Record<Exclude<DatabaseState, 'ok'>, string> = {
  unreachable: 'the database does not answer',
  'refuses-writes': 'the database refuses writes'
}

/**
 * Readiness: 200 when the database takes a write and the schema registry is loaded; otherwise
 * 503 SERVICE_UNAVAILABLE in the error envelope, and 200 again as soon as the database recovers.
 */
export function healthRoute (app: FastifyInstance): void {
  const check = sharedProbe(app.svc.db)
  app.get(
    '/healthz',
    {
      schema: documented({
        summary: 'Readiness: the database takes writes and the schemas are applied (503 otherwise)',
        security: [],
        response: {
          200: {
            type: 'object',
            required: ['status', 'checks'],
            properties: {
              status: { type: 'string', enum: ['ok'] },
              checks: { type: 'object', additionalProperties: true }
            }
          }
        }
      }),
      ...DOCUMENTED
    },
    async (request, reply) => {
      const schemas = app.svc?.registry != null
      const state = await check()
      const checks = { database: state === 'ok', schemas }
      if (state === 'ok' && schemas) return { status: 'ok', checks }
      const message = state !== 'ok' ? MESSAGES[state] : 'the schemas are not loaded'
      request.log.warn({ checks, state }, 'healthz: unavailable')
      return await reply.code(503).send({ error: { code: 'SERVICE_UNAVAILABLE', message, details: { checks } } })
    }
  )
}
