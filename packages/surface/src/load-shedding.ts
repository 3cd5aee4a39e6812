import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import underPressure from '@fastify/under-pressure'

export interface LoadSheddingOptions {
  /** Shed when the event loop lags more than this (ms); default 1000. 0 disables the check. */
  maxEventLoopDelayMs?: number
  /**
   * Shed above this event-loop utilization (0–1); default off: a busy but responsive loop (a load
   * test) is near 1 while answering fine, so lag is the default signal.
   */
  maxEventLoopUtilization?: number
  /** Shed above this heap use (bytes); default off. */
  maxHeapUsedBytes?: number
  /** Shed above this resident set size (bytes); default off. */
  maxRssBytes?: number
  /** `Retry-After` of a shed request, in seconds; default 10. */
  retryAfterSeconds?: number
}

/**
 * @fastify/under-pressure: when the process is saturated a request is answered at once with 503
 * `SERVICE_UNAVAILABLE` (envelope, `Retry-After`) instead of queueing without bound; `/healthz`
 * answers the same, so a balancer takes the replica out until it recovers.
 */
export async function installLoadShedding (app: FastifyInstance, opts: LoadSheddingOptions): Promise<void> {
  const retryAfter = opts.retryAfterSeconds ?? 10
  await app.register(underPressure, {
    maxEventLoopDelay: opts.maxEventLoopDelayMs ?? 1000,
    maxEventLoopUtilization: opts.maxEventLoopUtilization ?? 0,
    maxHeapUsedBytes: opts.maxHeapUsedBytes ?? 0,
    maxRssBytes: opts.maxRssBytes ?? 0,
    // A returned value is sent as the answer (returning nothing would let the request through);
    // the typings only know the void form.
    pressureHandler: ((_request: FastifyRequest, reply: FastifyReply, type: string) => {
      void reply.code(503).header('retry-after', retryAfter)
      return {
        error: { code: 'SERVICE_UNAVAILABLE', message: `the service is overloaded (${type}); retry in ${retryAfter} s` }
      }
    }) as unknown as (request: FastifyRequest, reply: FastifyReply, type: string) => void
  })
}
