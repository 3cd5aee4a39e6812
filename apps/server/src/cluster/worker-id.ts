import type { FastifyInstance } from 'fastify'

/** The header naming the worker that answered, present only when the server runs several. */
export const WORKER_HEADER = 'x-svc-worker'

/**
 * With SVC_WORKERS above 1 every answer names its worker (`SVC_WORKER_ID`, set by the primary),
 * so an operator (and the tests) can see requests spread over the processes. A single process
 * adds nothing.
 */
export function exposeWorkerId (app: FastifyInstance, workerId: string | undefined): void {
  if (workerId === undefined || workerId === '') return
  app.addHook('onSend', async (_request, reply) => { reply.header(WORKER_HEADER, workerId) })
}
