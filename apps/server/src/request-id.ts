import { randomUUID } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import type { IncomingMessage } from 'node:http'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i

/**
 * An incoming `x-request-id` is honoured only when it is a UUID, so a caller cannot inject
 * arbitrary text (or log-forging newlines) into every log line of its request.
 */
export function genReqId (req: IncomingMessage): string {
  const incoming = req.headers['x-request-id']
  if (typeof incoming === 'string' && UUID.test(incoming)) return incoming.toLowerCase()
  return randomUUID()
}

export function exposeRequestId (app: FastifyInstance): void {
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id)
    done()
  })
}
