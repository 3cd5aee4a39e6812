import { ErrorCodes, codeForStatus, type ErrorCode } from '../errors.js'

export interface ErrorEnvelope {
  error: { code: string, message: string, details?: Record<string, unknown> }
}

export interface NormalizedError {
  statusCode: number
  body: ErrorEnvelope
}

interface AjvIssue { instancePath?: string, keyword?: string, message?: string, params?: Record<string, unknown> }

function isObject (v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null
}

function fieldOf (issue: AjvIssue): string {
  const base = (issue.instancePath ?? '').replace(/^\//, '').replace(/\//g, '.')
  const extra = issue.params?.missingProperty ?? issue.params?.additionalProperty
  return typeof extra === 'string' ? (base === '' ? extra : `${base}.${extra}`) : base
}

function validation (err: Record<string, unknown>): NormalizedError {
  const issues = (err.validation as AjvIssue[]).map((i) => ({ field: fieldOf(i), message: i.message ?? 'is invalid' }))
  const first = issues[0] ?? { field: '', message: 'is invalid' }
  const location = typeof err.validationContext === 'string' ? err.validationContext : undefined
  const message = first.field === '' ? `${location ?? 'input'} ${first.message}` : `${first.field} ${first.message}`
  return { statusCode: 400, body: { error: { code: 'VALIDATION', message, details: { field: first.field, ...(location !== undefined ? { location } : {}), issues } } } }
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

/**
 * The one mapping from anything thrown to a status and the `{ error: { code, message, details? } }`
 * envelope. REST uses it in the error handler; GraphQL (`extensions.code`) and MCP reuse it.
 */
export function normalizeError (thrown: unknown, opts: { production?: boolean } = {}): NormalizedError {
  const err: Record<string, unknown> = isObject(thrown) ? thrown : { message: String(thrown) }
  if (Array.isArray(err.validation)) return validation(err)
  if (isDuplicateKey(err)) {
    return { statusCode: 409, body: { error: { code: 'CONFLICT', message: 'a record with the same unique values already exists', details: { keys: duplicateKeys(err) } } } }
  }
  if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE' || err.statusCode === 413) {
    return { statusCode: 413, body: { error: { code: 'PAYLOAD_TOO_LARGE', message: 'request body is too large' } } }
  }
  const status = typeof err.statusCode === 'number' ? err.statusCode : typeof err.status === 'number' ? err.status : 500
  if (status >= 400 && status < 500) {
    const code = typeof err.code === 'string' && err.code in ErrorCodes ? err.code as ErrorCode : codeForStatus(status)
    const message = typeof err.message === 'string' && err.message !== '' ? err.message : code.toLowerCase()
    const error: ErrorEnvelope['error'] = { code, message }
    if (isObject(err.details) && !Array.isArray(err.details)) error.details = err.details
    return { statusCode: status, body: { error } }
  }
  const message = opts.production === true || typeof err.message !== 'string' ? 'internal server error' : err.message
  return { statusCode: 500, body: { error: { code: 'INTERNAL', message } } }
}
