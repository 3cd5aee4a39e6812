import type { FastifyServerOptions } from 'fastify'
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

/** JSON lines on stdout (pino's default destination). */
export function loggerOptions (config: Pick<ServerConfig, 'nodeEnv'>): FastifyServerOptions['logger'] {
  return {
    level: 'info',
    redact: { paths: REDACT_PATHS, censor: '[redacted]' }
  }
}
