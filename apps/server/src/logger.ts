import { LogController, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify'
import type { ServerConfig } from './config.js'

/**
 * Redaction is configured once, here (CONVENTIONS.md). Request serializers already omit headers
 * and bodies; these paths also cover anything a plugin logs as an object.
 */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-client-id"]',
  'res.headers["set-cookie"]',
  'headers.authorization',
  'headers.cookie',
  'headers["set-cookie"]',
  'authorization',
  'cookie',
  '["set-cookie"]',
  'password',
  'token',
  'accessToken',
  'refreshToken',
  '*.password',
  '*.token',
  '*.accessToken',
  '*.refreshToken'
]

// Query parameters that are credentials: a signed download link's signature (@svc/files) and
// tokens some clients put in URLs. Logged URLs must not hand out working links.
const SECRET_PARAMS = /([?&](?:sig|token|access_token|refresh_token)=)[^&#]*/gi

/** The URL as access lines show it: path and query, secrets replaced. */
export function redactUrl (url: string): string {
  return url.replace(SECRET_PARAMS, '$1[redacted]')
}

/** JSON lines on stdout (pino's default destination), at LOG_LEVEL. */
export function loggerOptions (config: Pick<ServerConfig, 'logLevel'>): FastifyServerOptions['logger'] {
  return {
    level: config.logLevel,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    serializers: {
      // Fastify's own request serializer, with the URL's secret parameters redacted.
      req: (request: FastifyRequest) => ({
        method: request.method,
        url: redactUrl(request.url),
        host: request.host,
        remoteAddress: request.ip,
        remotePort: request.socket?.remotePort
      })
    }
  }
}

/**
 * One access line per answered request, at `info`, with the method and URL on it, in place of
 * Fastify's two (incoming + completed) and its "route not found" line; those two move to `debug`.
 * `LOG_LEVEL=warn` turns access lines off and keeps warnings and errors (core's error handler
 * logs every 5xx at `error`).
 */
export class AccessLogController extends LogController {
  override incomingRequest (request: FastifyRequest): void {
    request.log.debug({ req: request }, 'incoming request')
  }

  override requestCompleted (error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (error != null) {
      reply.log.error({ req: request, res: reply, err: error, responseTime: reply.elapsedTime }, 'request errored')
    } else reply.log.info({ req: request, res: reply, responseTime: reply.elapsedTime }, 'request completed')
  }

  override routeNotFound (request: FastifyRequest): void {
    request.log.debug({ req: request }, 'route not found')
  }
}
