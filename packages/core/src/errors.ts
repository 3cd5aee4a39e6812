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
  METHOD_NOT_ALLOWED: 405,
  REQUEST_TIMEOUT: 408,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  HEADERS_TOO_LARGE: 431,
  INTERNAL: 500,
  QUERY_TIMEOUT: 503,
  SERVICE_UNAVAILABLE: 503
} as const

export type ErrorCode = keyof typeof ErrorCodes

/** True for a code of the table (own keys only: `constructor` is not a code). */
export function isErrorCode (code: unknown): code is ErrorCode {
  return typeof code === 'string' && Object.hasOwn(ErrorCodes, code)
}

/** Maps an HTTP status to the stable code used when an error carries only a status. */
export function codeForStatus (status: number): ErrorCode {
  switch (status) {
    case 400:
      return 'VALIDATION'
    case 401:
      return 'UNAUTHENTICATED'
    case 403:
      return 'FORBIDDEN'
    case 404:
      return 'NOT_FOUND'
    case 405:
      return 'METHOD_NOT_ALLOWED'
    case 408:
      return 'REQUEST_TIMEOUT'
    case 409:
      return 'CONFLICT'
    case 413:
      return 'PAYLOAD_TOO_LARGE'
    case 415:
      return 'UNSUPPORTED_MEDIA_TYPE'
    case 429:
      return 'RATE_LIMITED'
    case 431:
      return 'HEADERS_TOO_LARGE'
    case 503:
      return 'SERVICE_UNAVAILABLE'
    default:
      return status >= 500 ? 'INTERNAL' : 'VALIDATION'
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

/** At most this many validation issues are listed; more sets `details.truncated`. */
export const MAX_ISSUES = 50

/** One problem with the input: the dotted field it concerns (`''` for the whole input) and what is wrong. */
export interface Issue {
  field: string
  message: string
}

/**
 * The one VALIDATION error for a list of issues (route validation and the service's own checks):
 * the first issue is the message and `details.field`, every issue (at most MAX_ISSUES) in
 * `details.issues`, so a client fixes everything in one round trip.
 */
export function validationError (all: Issue[], location?: string): InstanceType<typeof ValidationError> {
  const issues = all.slice(0, MAX_ISSUES)
  const first = issues[0] ?? { field: '', message: 'is invalid' }
  let message = first.field === '' ? `${location ?? 'input'} ${first.message}` : `${first.field} ${first.message}`
  if (all.length > 1) message += ` (and ${all.length - 1} more, see details.issues)`
  const details: Record<string, unknown> = {
    field: first.field,
    ...(location !== undefined ? { location } : {}),
    issues
  }
  if (all.length > MAX_ISSUES) details.truncated = true
  return new ValidationError(message, details)
}
