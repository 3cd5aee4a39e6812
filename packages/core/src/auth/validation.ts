import type { FastifyRequest } from 'fastify'
import { ValidationError } from '../errors.js'

interface AjvIssue {
  instancePath?: string
  message?: string
  params?: Record<string, unknown>
}

/**
 * Auth routes validate with `attachValidation` and convert here, so the 400 always carries the
 * stable VALIDATION code and names the offending field, whatever error handler the host app has.
 */
export function assertValidBody (request: FastifyRequest): void {
  const err = request.validationError as (Error & { validation?: AjvIssue[] }) | undefined
  if (err == null) return
  const issue = err.validation?.[0]
  const missing = issue?.params?.missingProperty
  const path =
    typeof missing === 'string' ? missing : (issue?.instancePath ?? '').replace(/^\//, '').replace(/\//g, '.')
  if (path === '') throw new ValidationError('request body must be a JSON object')
  throw new ValidationError(
    `body.${path} ${typeof missing === 'string' ? 'is required' : (issue?.message ?? 'is invalid')}`,
    { field: path }
  )
}

/** bcrypt silently ignores bytes after 72; refuse instead of accepting a truncated password. */
export function assertPasswordBytes (password: string): void {
  if (Buffer.byteLength(password, 'utf8') > 72) {
    throw new ValidationError('body.password must be at most 72 bytes', { field: 'password' })
  }
}
