import createError from '@fastify/error'

/**
 * The one vocabulary of stable error codes, shared by every surface (REST envelope,
 * GraphQL `extensions.code`, MCP tool errors). Status ↔ code lives here and nowhere else.
 */
export const ErrorCodes = {
  VALIDATION: 400,
  INVALID_TRANSITION: 400,
  UNAUTHENTICATED: 401,
  UNLINKED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  RATE_LIMITED: 429,
  INTERNAL: 500
} as const

export type ErrorCode = keyof typeof ErrorCodes

/** Maps an HTTP status to the stable code used when an error carries only a status. */
export function codeForStatus (status: number): ErrorCode {
  switch (status) {
    case 400: return 'VALIDATION'
    case 401: return 'UNAUTHENTICATED'
    case 403: return 'FORBIDDEN'
    case 404: return 'NOT_FOUND'
    case 409: return 'CONFLICT'
    case 413: return 'PAYLOAD_TOO_LARGE'
    case 429: return 'RATE_LIMITED'
    default: return status >= 500 ? 'INTERNAL' : 'VALIDATION'
  }
}

/** Errors carry optional `details` that the envelope renders verbatim. */
export interface SvcErrorLike extends Error {
  code: string
  statusCode: number
  details?: Record<string, unknown>
}

function define (code: ErrorCode, defaultMessage: string) {
  const Base = createError(code, '%s', ErrorCodes[code])
  return class extends Base implements SvcErrorLike {
    details?: Record<string, unknown>
    constructor (message: string = defaultMessage, details?: Record<string, unknown>, options?: { cause?: unknown }) {
      super(message)
      if (details !== undefined) this.details = details
      if (options?.cause !== undefined) (this as { cause?: unknown }).cause = options.cause
    }
  }
}

export const ValidationError = define('VALIDATION', 'invalid input')
export const InvalidTransitionError = define('INVALID_TRANSITION', 'invalid state transition')
export const UnauthenticatedError = define('UNAUTHENTICATED', 'authentication required')
export const ForbiddenError = define('FORBIDDEN', 'forbidden')
export const NotFoundError = define('NOT_FOUND', 'not found')
export const ConflictError = define('CONFLICT', 'conflict')
export const PayloadTooLargeError = define('PAYLOAD_TOO_LARGE', 'payload too large')
export const RateLimitedError = define('RATE_LIMITED', 'rate limit exceeded')
export const InternalError = define('INTERNAL', 'internal server error')
