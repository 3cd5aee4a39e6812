import { STATUS_CODES, type Server } from 'node:http'
import type { Socket } from 'node:net'
import type { FastifyHttpOptions, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { ErrorCode } from '../errors.js'
import { normalizeError } from './error-envelope.js'
import { DEFAULT_REQUEST_TIMEOUT_MS, HEADERS_TIMEOUT_MS } from '../values/limits.js'

/** Errors the router raises before any route or plugin exists to catch them (long or undecodable params). */
function frameworkErrors (error: Error, _request: FastifyRequest, reply: FastifyReply): void {
  const { statusCode, body } = normalizeError(error)
  void reply.code(statusCode).send(body)
}

function clientFailure (code: string | undefined): [number, ErrorCode, string] {
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT' || code === 'ERR_HTTP_HEADERS_TIMEOUT') {
    return [408, 'REQUEST_TIMEOUT', 'the request took too long to arrive']
  }
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
  // An answer already on its way (the route replied before the body ended) must not be corrupted.
  const answering = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true
  if (socket.writable && !answering) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
    )
  }
  socket.destroy(err)
}

/**
 * Fastify factory options that put the router's and Node's own refusals in the error envelope,
 * and bound how long a request may take to arrive: its headers within `HEADERS_TIMEOUT_MS`, the
 * whole request (body included) within `DEFAULT_REQUEST_TIMEOUT_MS`, checked every second — a
 * body trickling in forever is answered 408 REQUEST_TIMEOUT and its connection closed. They
 * cannot be set by a plugin, so hosts pass them: `Fastify({ ...svcServerOptions, logger })`
 * (`requestTimeout` may be overridden after the spread).
 */
export const svcServerOptions: Pick<
  FastifyHttpOptions<Server>,
  'frameworkErrors' | 'clientErrorHandler' | 'requestTimeout' | 'http'
> = {
  frameworkErrors,
  clientErrorHandler,
  ...requestTimeouts(DEFAULT_REQUEST_TIMEOUT_MS)
}

/**
 * The deadline options for another request timeout (`Fastify({ ...svcServerOptions,
 * ...requestTimeouts(ms) })`): Node wants the headers' deadline no later than the request's, and
 * checks them every `connectionsCheckingInterval` (30 s by default: a second keeps them honest).
 */
export function requestTimeouts (ms: number): Pick<FastifyHttpOptions<Server>, 'requestTimeout' | 'http'> {
  if (!Number.isInteger(ms) || ms < 1) {
    throw new Error('@svc/core: a request timeout is a positive whole number of milliseconds')
  }
  return {
    requestTimeout: ms,
    http: { headersTimeout: Math.min(HEADERS_TIMEOUT_MS, ms), connectionsCheckingInterval: Math.min(1000, ms) }
  }
}
