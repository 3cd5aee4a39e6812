import type { ErrorCode } from '../errors.js'

export interface KnownError {
  code: ErrorCode
  message: string
}

/**
 * Fastify's own errors (body parser, router) in the table's vocabulary. An over-long or
 * undecodable path segment is a malformed id, and a malformed id is 404 (CONTRACT.md); their
 * messages never echo the path back.
 */
const FASTIFY = new Map<string, KnownError>([
  ['FST_ERR_CTP_BODY_TOO_LARGE', { code: 'PAYLOAD_TOO_LARGE', message: 'request body is too large' }],
  [
    'FST_ERR_CTP_INVALID_MEDIA_TYPE',
    { code: 'UNSUPPORTED_MEDIA_TYPE', message: 'unsupported content type: send application/json' }
  ],
  [
    'FST_ERR_CTP_INVALID_JSON_BODY',
    {
      code: 'VALIDATION',
      message: 'request body is not valid JSON (keys __proto__ and constructor.prototype are refused too)'
    }
  ],
  [
    'FST_ERR_CTP_EMPTY_JSON_BODY',
    { code: 'VALIDATION', message: 'request body is empty but content-type is application/json' }
  ],
  [
    'FST_ERR_CTP_INVALID_CONTENT_LENGTH',
    { code: 'VALIDATION', message: 'request body size does not match Content-Length' }
  ],
  ['FST_ERR_BAD_URL', { code: 'NOT_FOUND', message: 'not found: the URL is malformed' }],
  ['FST_ERR_MAX_PARAM_LENGTH', { code: 'NOT_FOUND', message: 'not found: a path segment is too long to be an id' }]
])

export function frameworkError (err: Record<string, unknown>): KnownError | null {
  if (typeof err.code === 'string' && err.code.startsWith('FST_ERR_')) return FASTIFY.get(err.code) ?? null
  // Other plugins' body limits (multipart) carry only the status.
  if (err.statusCode === 413) {
    return {
      code: 'PAYLOAD_TOO_LARGE',
      message: typeof err.message === 'string' && err.message !== '' ? err.message : 'request body is too large'
    }
  }
  return null
}
