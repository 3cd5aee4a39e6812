import createError from '@fastify/error'

/**
 * The stable codes the agent answers with (the service's vocabulary, spec "Errors"). Not imported
 * from @svc/core: the agent is deployed apart and does not install the service's stack for a
 * table; test/errors.test.ts holds these codes, statuses and envelopes equal to core's.
 */
export const AgentErrorCodes = {
  VALIDATION: 400,
  UNAUTHENTICATED: 401,
  UNLINKED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  INTERNAL: 500,
  SERVICE_UNAVAILABLE: 503
} as const

export type AgentErrorCode = keyof typeof AgentErrorCodes

export interface AgentErrorLike extends Error {
  code: AgentErrorCode
  statusCode: number
  details?: Record<string, unknown>
}

function define (code: AgentErrorCode, defaultMessage: string) {
  const Base = createError(code, '%s', AgentErrorCodes[code])
  return class extends Base {
    declare code: AgentErrorCode
    details?: Record<string, unknown>
    /** For the log only (an internal address, an upstream body): never part of the envelope. */
    internal?: string
    constructor (
      message: string = defaultMessage,
      details?: Record<string, unknown>,
      options?: { cause?: unknown; internal?: string }
    ) {
      super(message)
      if (details !== undefined) this.details = details
      if (options?.cause !== undefined) (this as { cause?: unknown }).cause = options.cause
      if (options?.internal !== undefined) this.internal = options.internal
    }
  }
}

export const ValidationError = define('VALIDATION', 'invalid input')
export const UnauthenticatedError = define('UNAUTHENTICATED', 'authentication required')
export const UnlinkedError = define('UNLINKED', 'this chat user is not linked to an account yet')
export const ForbiddenError = define('FORBIDDEN', 'forbidden')
export const NotFoundError = define('NOT_FOUND', 'not found')
export const UnsupportedMediaTypeError = define('UNSUPPORTED_MEDIA_TYPE', 'unsupported content type')
/** Too many requests: `details.retryAfterSeconds` says when to try again (also sent as `Retry-After`). */
export const RateLimitedError = define('RATE_LIMITED', 'too many requests')
/** The model API could not be reached, timed out, or refused the request (misconfiguration). */
export const ModelUnavailableError = define('SERVICE_UNAVAILABLE', 'the language model is unavailable')
/** The service (MCP, login) could not be reached. */
export const ServiceUnavailableError = define('SERVICE_UNAVAILABLE', 'the service is unavailable')

/** True for errors the agent raised on purpose (a stable code and a client status). */
export function isAgentError (err: unknown): err is AgentErrorLike {
  const e = err as Partial<AgentErrorLike> | null
  return (
    e != null &&
    typeof e.code === 'string' &&
    Object.hasOwn(AgentErrorCodes, e.code) &&
    typeof e.statusCode === 'number'
  )
}

/** The envelope `{ error: { code, message, details? } }`; anything unexpected is INTERNAL. */
export function errorEnvelope (err: unknown): {
  status: number
  body: { error: { code: string; message: string; details?: Record<string, unknown> } }
} {
  if (isAgentError(err)) {
    const error: { code: string; message: string; details?: Record<string, unknown> } = {
      code: err.code,
      message: err.message
    }
    if (err.details !== undefined) error.details = err.details
    return { status: err.statusCode, body: { error } }
  }
  return { status: 500, body: { error: { code: 'INTERNAL', message: 'internal error' } } }
}
