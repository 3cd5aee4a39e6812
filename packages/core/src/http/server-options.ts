import { STATUS_CODES } from 'node:http'
import type { Socket } from 'node:net'
import type { FastifyInstance, FastifyReply, FastifyRequest, FastifyServerOptions } from 'fastify'
import type { ErrorCode } from '../errors.js'
import { normalizeError } from './error-envelope.js'

/** Errors the router raises before any route or plugin exists to catch them (long or undecodable params). */
function frameworkErrors (error: Error, request: FastifyRequest, reply: FastifyReply): void {
  const { statusCode, body } = normalizeError(error)
  void reply.code(statusCode).send(body)
}

function clientFailure (code: string | undefined): [number, ErrorCode, string] {
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT' || code === 'ERR_HTTP_HEADERS_TIMEOUT') return [408, 'REQUEST_TIMEOUT', 'the request took too long to arrive']
  if (code === 'HPE_HEADER_OVERFLOW') return [431, 'HEADERS_TOO_LARGE', 'request headers (or the URL) are too large']
  return [400, 'VALIDATION', 'malformed HTTP request']
}

/**
 * Node's HTTP parser refusing a request (headers over the limit, garbage on the wire) never
 * reaches Fastify: the bytes written here are the whole answer, so they carry the envelope too.
 */
function clientErrorHandler (this: FastifyInstance, err: Error & { code?: string }, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return
  const [status, code, message] = clientFailure(err.code)
  const body = JSON.stringify({ error: { code, message } })
  this.log.debug({ err, statusCode: status }, 'client error')
  if (socket.writable) {
    socket.write(`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`)
  }
  socket.destroy(err)
}

/**
 * Fastify factory options that put the router's and Node's own refusals in the error envelope.
 * They cannot be set by a plugin, so hosts pass them: `Fastify({ ...svcServerOptions, logger })`.
 */
export const svcServerOptions: Pick<FastifyServerOptions, 'frameworkErrors' | 'clientErrorHandler'> = {
  frameworkErrors,
  clientErrorHandler
}
