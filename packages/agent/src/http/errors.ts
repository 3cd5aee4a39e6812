import type { FastifyError, FastifyInstance } from 'fastify'
import { Ajv } from 'ajv'
import { errorEnvelope } from '../errors.js'

/** The agent's routes answer every error in the service's envelope. */
export function installErrorHandler (app: FastifyInstance): void {
  // No type coercion: `{ message: 7 }` is a client error, not the message "7".
  const ajv = new Ajv({ coerceTypes: false, useDefaults: true, removeAdditional: false, allErrors: false })
  app.setValidatorCompiler(({ schema }) => ajv.compile(schema))
  app.setErrorHandler((err: FastifyError, req, reply) => {
    if (err.validation != null) {
      return reply.code(400).send({ error: { code: 'VALIDATION', message: err.message, details: { issues: err.validation.map((v) => ({ field: v.instancePath.replace(/^\//, '').replace(/\//g, '.'), message: v.message ?? 'is invalid' })) } } })
    }
    if (err.statusCode === 413) return reply.code(413).send({ error: { code: 'PAYLOAD_TOO_LARGE', message: err.message } })
    if (err.statusCode === 415) return reply.code(415).send({ error: { code: 'UNSUPPORTED_MEDIA_TYPE', message: err.message } })
    if (err.statusCode === 400) return reply.code(400).send({ error: { code: 'VALIDATION', message: err.message } })
    const { status, body } = errorEnvelope(err)
    if (status >= 500) req.log.error({ err }, 'chat request failed')
    return reply.code(status).send(body)
  })
  app.setNotFoundHandler((req, reply) => reply.code(404).send({ error: { code: 'NOT_FOUND', message: `no route ${req.method} ${req.url.split('?')[0]}` } }))
}
