import { ErrorCodes, codeForStatus, isErrorCode, validationError, type ErrorCode, type Issue } from '../errors.js'
import { driverError } from './driver-errors.js'
import { frameworkError } from './framework-errors.js'

export interface ErrorEnvelope {
  error: { code: string; message: string; details?: Record<string, unknown> }
}

export interface NormalizedError {
  statusCode: number
  body: ErrorEnvelope
}

interface AjvIssue {
  instancePath?: string
  keyword?: string
  message?: string
  params?: Record<string, unknown>
}

function isObject (v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null
}

function fieldOf (issue: AjvIssue): string {
  const base = (issue.instancePath ?? '').replace(/^\//, '').replace(/\//g, '.')
  const extra = issue.params?.missingProperty ?? issue.params?.additionalProperty
  return typeof extra === 'string' ? (base === '' ? extra : `${base}.${extra}`) : base
}

function ajvIssue (i: AjvIssue): Issue {
  // Ajv says "must NOT have additional properties"; the field is named, so say what it means.
  const message = i.keyword === 'additionalProperties' ? 'is not a known field' : (i.message ?? 'is invalid')
  return { field: fieldOf(i), message }
}

function validation (err: Record<string, unknown>): NormalizedError {
  const issues = (err.validation as AjvIssue[]).map(ajvIssue)
  return normalizeError(
    validationError(issues, typeof err.validationContext === 'string' ? err.validationContext : undefined)
  )
}

/** Field names of a duplicate-key error; values are never exposed (they may be another tenant's). */
function duplicateKeys (err: Record<string, unknown>): string[] {
  let keys = isObject(err.keyPattern) ? Object.keys(err.keyPattern) : []
  if (keys.length === 0 && typeof err.message === 'string') {
    const m = /dup key: \{ ?([^}]*)\}/.exec(err.message)
    if (m != null) keys = [...m[1].matchAll(/([\w.]+)\s*:/g)].map((x) => x[1])
  }
  const own = keys.filter((k) => k !== 'userId' && k !== 'accountId')
  return own.length > 0 ? own : keys
}

function isDuplicateKey (err: Record<string, unknown>): boolean {
  return err.code === 11000 || err.code === 11001 || (isObject(err.errorResponse) && err.errorResponse.code === 11000)
}

function envelope (
  statusCode: number,
  code: ErrorCode,
  message: string,
  details?: Record<string, unknown>
): NormalizedError {
  return { statusCode, body: { error: { code, message, ...(details !== undefined ? { details } : {}) } } }
}

/**
 * The one mapping from anything thrown to a status and the `{ error: { code, message, details? } }`
 * envelope. REST uses it in the error handler; GraphQL (`extensions.code`) and MCP reuse it.
 */
export function normalizeError (thrown: unknown, opts: { production?: boolean } = {}): NormalizedError {
  const err: Record<string, unknown> = isObject(thrown) ? thrown : { message: String(thrown) }
  if (Array.isArray(err.validation)) return validation(err)
  if (isDuplicateKey(err)) {
    return envelope(409, 'CONFLICT', 'a record with the same unique values already exists', {
      keys: duplicateKeys(err)
    })
  }
  const known = frameworkError(err) ?? driverError(err)
  if (known !== null) return envelope(ErrorCodes[known.code], known.code, known.message)
  const status = typeof err.statusCode === 'number' ? err.statusCode : typeof err.status === 'number' ? err.status : 500
  if (status >= 400 && status < 500) {
    const code = isErrorCode(err.code) ? err.code : codeForStatus(status)
    const message = typeof err.message === 'string' && err.message !== '' ? err.message : code.toLowerCase()
    return envelope(
      status,
      code,
      message,
      isObject(err.details) && !Array.isArray(err.details) ? err.details : undefined
    )
  }
  // A 5xx keeps its status only when it names a 5xx code of the table (load shedding, time bound).
  if (isErrorCode(err.code) && ErrorCodes[err.code] >= 500 && err.code !== 'INTERNAL') {
    return envelope(
      ErrorCodes[err.code],
      err.code,
      typeof err.message === 'string' && err.message !== '' ? err.message : err.code.toLowerCase()
    )
  }
  const message = opts.production === true || typeof err.message !== 'string' ? 'internal server error' : err.message
  return envelope(500, 'INTERNAL', message)
}
