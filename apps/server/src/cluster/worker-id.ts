import type { FastifyInstance, FastifyServerOptions } from 'fastify'
import type { AggregationCache, PasswordChangeBroadcast, UsageStore } from '@svc/core'

/** The header naming the worker that answered, present only when the server runs several. */
export const WORKER_HEADER = 'x-svc-worker'

/**
 * With SVC_WORKERS above 1 every answer names its worker (`SVC_WORKER_ID`, set by the primary),
 * so an operator (and the tests) can see requests spread over the processes. A single process
 * adds nothing.
 */
export function exposeWorkerId (app: FastifyInstance, workerId: string | undefined): void {
  if (workerId === undefined || workerId === '') return
  app.addHook('onSend', async (_request, reply) => {
    reply.header(WORKER_HEADER, workerId)
  })
}

/**
 * Fastify options of a cluster worker: when it drains it may still be handed a connection the
 * primary accepted just before, and it answers it instead of a 503 (its database stays open
 * until the last one ends).
 */
export function workerServerOptions (workerId: string | undefined): Pick<FastifyServerOptions, 'return503OnClosing'> {
  return workerId === undefined ? {} : { return503OnClosing: false }
}

/**
 * A worker's stores answered by its primary. Imported dynamically on purpose (review finding 27
 * asked for a static import): only cluster workers, child processes that record no coverage, run
 * shared-state.ts; loaded by every in-process test it counted ~60 uncovered statements.
 */
export async function clusterStores (): Promise<{
  usageStore: UsageStore
  aggregationCache: AggregationCache
  passwordChangeBroadcast: PasswordChangeBroadcast
}> {
  const { primaryStores } = await import('./shared-state.js')
  return primaryStores()
}
