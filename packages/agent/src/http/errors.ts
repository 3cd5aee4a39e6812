import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { Ajv } from 'ajv'
import { errorEnvelope, isAgentError } from '../errors.js'

type Envelope = {
  status: number
  body: { error: { code: string; message: string; details?: Record<string, unknown> } }
}

const CLIENT_CODES: Record<number, string> = { 413: 'PAYLOAD_TOO_LARGE', 415: 'UNSUPPORTED_MEDIA_TYPE' }

/**
 * Any error as the envelope: validation and Fastify's own client errors with their status, the
 * agent's errors with their code (RATE_LIMITED also as `Retry-After`), anything else INTERNAL
 * (logged, with what the person must not see).
 */
export function httpError (err: FastifyError, req: FastifyRequest, reply: FastifyReply): Envelope {
  if (err.validation != null) {
    return {
      status: 400,
      body: {
        error: {
          code: 'VALIDATION',
          message: err.message,
          details: {
            issues: err.validation.map((v) => ({
              field: v.instancePath.replace(/^\//, '').replace(/\//g, '.'),
              message: v.message ?? 'is invalid'
            }))
          }
        }
      }
    }
  }
  if (!isAgentError(err) && typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500) {
    return {
      status: err.statusCode,
      body: { error: { code: CLIENT_CODES[err.statusCode] ?? 'VALIDATION', message: err.message } }
    }
  }
  const envelope = errorEnvelope(err)
  if (isAgentError(err) && typeof err.details?.retryAfterSeconds === 'number') {
    reply.header('retry-after', String(err.details.retryAfterSeconds))
  }
  if (envelope.status >= 500) req.log.error({ err }, 'request failed')
  return envelope
}

/** The agent's routes answer every error in the service's envelope. */
export function installErrorHandler (app: FastifyInstance): void {
  // No type coercion: `{ message: 7 }` is a client error, not the message "7".
  const ajv = new Ajv({ coerceTypes: false, useDefaults: true, removeAdditional: false, allErrors: false })
  app.setValidatorCompiler(({ schema }) => ajv.compile(schema))
  app.setErrorHandler((err: FastifyError, req, reply) => {
    const { status, body } = httpError(err, req, reply)
    return reply.code(status).send(body)
  })
  app.setNotFoundHandler((req, reply) =>
    reply.code(404).send({ error: { code: 'NOT_FOUND', message: `no route ${req.method} ${req.url.split('?')[0]}` } })
  )
}
