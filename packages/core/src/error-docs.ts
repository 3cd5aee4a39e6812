import { ErrorCodes, type ErrorCode } from './errors.js'

/**
 * When each stable code is answered: the "When" column of the README's error table, which
 * `pnpm --filter @svc/core errors:doc` writes from here and ErrorCodes (a test keeps them equal).
 * A record keyed by ErrorCode, so a new code without a line here does not compile.
 */
export const ErrorCodeDocs: Record<ErrorCode, string> = {
  VALIDATION:
    'invalid input; `details.field` names the first problem and `details.issues` lists every one ' +
    '(at most 50, then `details.truncated: true`). Also invalid or empty JSON and malformed HTTP requests, ' +
    'and an oversize or refused-type upload (`details.recoverable: true`)',
  INVALID_TRANSITION: 'a state change outside the transition table (`details.current`, `attempted`, `allowed`)',
  UNAUTHENTICATED: 'missing, invalid or expired token, unknown client id',
  UNLINKED: 'agent per-user mode: the channel user is not linked',
  FORBIDDEN: 'field or document ACL (`details.field`), api-client writes',
  NOT_FOUND:
    'unknown route or method; unknown, malformed (also over-long or undecodable), tombstoned ' +
    "or another tenant's id",
  METHOD_NOT_ALLOWED: 'a plugin refusing a method on a route it serves',
  REQUEST_TIMEOUT:
    'the request did not arrive in time: headers within 10 s, the whole request (body included) ' +
    'within `REQUEST_TIMEOUT_MS`; the connection is closed',
  CONFLICT:
    'duplicate key (`details.keys`: field names only), concurrent state change, reused ' +
    '`Idempotency-Key` with another body',
  PAYLOAD_TOO_LARGE: 'body over the size limit',
  UNSUPPORTED_MEDIA_TYPE: 'a body that is not `application/json`',
  RATE_LIMITED: 'rate limit exceeded',
  HEADERS_TOO_LARGE: 'request headers (or the URL) over 16 KB',
  INTERNAL: 'anything unexpected (the message is hidden in production)',
  QUERY_TIMEOUT: 'a query took longer than `QUERY_TIMEOUT_MS`: narrow the filter or page size',
  SERVICE_UNAVAILABLE: 'the database is unreachable or refuses writes'
}

/** The README's table: one row per code, in the code table's order. */
export function errorTableMarkdown (): string {
  const row = (code: ErrorCode): string => `| ${ErrorCodes[code]} | \`${code}\` | ${ErrorCodeDocs[code]} |`
  const rows = (Object.keys(ErrorCodes) as ErrorCode[]).map(row)
  return ['| Status | Code | When |', '|---|---|---|', ...rows].join('\n')
}
