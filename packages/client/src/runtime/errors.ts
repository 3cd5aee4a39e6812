/** The stable codes of the service's error envelope (`{ error: { code, message, details? } }`). */
export type ErrorCode =
  | 'VALIDATION'
  | 'INVALID_TRANSITION'
  | 'UNAUTHENTICATED'
  | 'UNLINKED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'METHOD_NOT_ALLOWED'
  | 'REQUEST_TIMEOUT'
  | 'CONFLICT'
  | 'PAYLOAD_TOO_LARGE'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'RATE_LIMITED'
  | 'HEADERS_TOO_LARGE'
  | 'INTERNAL'
  | 'QUERY_TIMEOUT'
  | 'SERVICE_UNAVAILABLE'

/** Raised by the client itself: the request never got an answer (`NETWORK`) or the answer was not the service's envelope (`BAD_RESPONSE`). */
export type ClientErrorCode = 'NETWORK' | 'BAD_RESPONSE'

/** `details` of the codes whose shape the service fixes; other codes carry a plain object. */
export interface ErrorDetailsByCode {
  INVALID_TRANSITION: { field: string; current: string | null; attempted: string | null; allowed: string[] }
  CONFLICT: { keys?: string[]; [k: string]: unknown }
  VALIDATION: { field?: string; recoverable?: boolean; [k: string]: unknown }
  FORBIDDEN: { field?: string; [k: string]: unknown }
}

type AnyCode = ErrorCode | ClientErrorCode

/** The details of one code (narrow with `isSvcError(err, code)`); any code's when it is not narrowed. */
export type ErrorDetails<C> = [AnyCode] extends [C]
  ? Record<string, unknown>
  : C extends keyof ErrorDetailsByCode
    ? ErrorDetailsByCode[C]
    : Record<string, unknown>

/**
 * Every failure of a client call. `code` is the envelope's stable code (or a client code),
 * `requestId` the answer's `x-request-id`, to quote when reporting a problem.
 */
export class SvcError<C extends ErrorCode | ClientErrorCode = ErrorCode | ClientErrorCode> extends Error {
  override readonly name = 'SvcError'
  readonly code: C
  /** HTTP status; 0 when no answer arrived. */
  readonly status: number
  readonly details: ErrorDetails<C> | undefined
  readonly requestId: string | undefined

  constructor (init: {
    code: C
    status: number
    message: string
    details?: ErrorDetails<C>
    requestId?: string
    cause?: unknown
  }) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause })
    this.code = init.code
    this.status = init.status
    this.details = init.details
    this.requestId = init.requestId
  }
}

/** Narrows an unknown error to a `SvcError`, optionally of one code: `if (isSvcError(err, 'INVALID_TRANSITION')) err.details.allowed`. */
export function isSvcError<C extends ErrorCode | ClientErrorCode> (err: unknown, code?: C): err is SvcError<C> {
  return err instanceof SvcError && (code === undefined || err.code === code)
}

/** Builds the error for a non-2xx answer from its body (the envelope when it is one). */
export function errorFromResponse (status: number, body: unknown, requestId: string | undefined): SvcError {
  const error = (body as { error?: { code?: unknown; message?: unknown; details?: unknown } } | null)?.error
  if (error != null && typeof error.code === 'string' && typeof error.message === 'string') {
    return new SvcError<AnyCode>({
      code: error.code as ErrorCode,
      status,
      message: error.message,
      ...(error.details != null && typeof error.details === 'object'
        ? { details: error.details as Record<string, unknown> }
        : {}),
      ...(requestId !== undefined ? { requestId } : {})
    })
  }
  return new SvcError<AnyCode>({
    code: 'BAD_RESPONSE',
    status,
    message: `unexpected ${status} answer without an error envelope`,
    ...(requestId !== undefined ? { requestId } : {})
  })
}
