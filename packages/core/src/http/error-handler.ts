import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { normalizeError } from './error-envelope.js'

/**
 * Installs the envelope renderer and a not-found handler on the instance core is registered on
 * (core is `fp`-wrapped, so this is the host's root): every surface answers errors the same way.
 */
export function installErrorHandling (app: FastifyInstance, opts: { production: boolean }): void {
  app.setErrorHandler(async (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const { statusCode, body } = normalizeError(error, opts)
    // 4xx are the caller's business (Fastify logs the response); 5xx need the stack in the log.
    if (statusCode >= 500) request.log.error({ err: error }, 'request failed')
    // A budget over time (rate limit, tenant cost budget) says when to come back.
    const retry = body.error.details?.retryAfterSeconds
    if (statusCode === 429 && typeof retry === 'number') void reply.header('retry-after', retry)
    return await reply.code(statusCode).send(body)
  })
  app.setNotFoundHandler(async (request, reply) => {
    return await reply
      .code(404)
      .send({ error: { code: 'NOT_FOUND', message: `route ${request.method} ${request.url.split('?')[0]} not found` } })
  })
}
