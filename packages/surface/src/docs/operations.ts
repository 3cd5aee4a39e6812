/** What both API descriptions (Swagger 2.0 and OpenAPI 3.1) say the same way about operations, and their one walk. */
type Obj = Record<string, any>

export const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch']

/** The error codes of the `{ error: { code, message, details? } }` envelope. */
export const ERROR_CODES = [
  'VALIDATION',
  'INVALID_TRANSITION',
  'UNAUTHENTICATED',
  'UNLINKED',
  'FORBIDDEN',
  'NOT_FOUND',
  'METHOD_NOT_ALLOWED',
  'REQUEST_TIMEOUT',
  'CONFLICT',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'RATE_LIMITED',
  'HEADERS_TOO_LARGE',
  'INTERNAL',
  'QUERY_TIMEOUT',
  'SERVICE_UNAVAILABLE'
]

export const ERROR_DESCRIPTION = 'Error: `{ error: { code, message, details? } }` with a stable code'

/** The envelope every failure answers with (JSON Schema common to 2.0 and 3.1). */
export const ERROR_ENVELOPE = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: {
        code: { type: 'string', description: 'stable error code', example: 'VALIDATION', enum: ERROR_CODES },
        message: { type: 'string', example: 'title is required' },
        details: { type: 'object', description: 'code-specific: field, issues, keys, current/attempted/allowed…' }
      }
    }
  }
}

/** Who may call a route: the data API takes a bearer, and an api client on reads; the rest is public. */
export function security (path: string, method: string, declared: unknown): Array<Record<string, string[]>> {
  if (Array.isArray(declared)) return declared
  if (path.startsWith('/api/')) return method === 'get' ? [{ bearer: [] }, { clientId: [] }] : [{ bearer: [] }]
  if (path === '/mcp') return [{ bearer: [] }, { clientId: [] }]
  return []
}

/** Groups operations in the UI: one tag per schema path, `auth`, then everything else. */
export function tag (path: string): string {
  const m = /^\/api\/[^/]+\/([^/]+)/.exec(path)
  if (m !== null) return m[1].replace(/-schema$/, '')
  if (/^\/(login|register|auth)(\/|$)/.test(path)) return 'auth'
  return 'service'
}

/**
 * A path as tools can use it: Fastify's wildcard (`/files/*`, which @fastify/swagger writes
 * `{*}`) becomes a named parameter, `{path}` (a code generator cannot name a variable `*`).
 */
export function toolPath (path: string): string {
  return path.replace(/\{\*\}/g, '{path}')
}

/** A stable, unique name for code generators: `get /api/v1/notes/{id}` is `getApiV1NotesById`. */
export function operationId (path: string, method: string): string {
  const words = path
    .split('/')
    .filter((w) => w !== '')
    .flatMap((w) => {
      const param = /^\{(.+)\}$/.exec(w)
      return param !== null ? ['by', ...param[1].split(/[^A-Za-z0-9]+/)] : w.split(/[^A-Za-z0-9]+/)
    })
    .filter((w) => w !== '')
  return method + words.map((w) => w[0].toUpperCase() + w.slice(1)).join('')
}

/** Summary, tags and security every operation carries (linters and UIs expect them). */
export function operationBasics (path: string, method: string, op: Obj): Obj {
  return {
    summary: op.summary ?? `${method.toUpperCase()} ${path}`,
    operationId: op.operationId ?? operationId(path, method),
    tags: op.tags ?? [tag(path)],
    security: security(path, method, op.security)
  }
}

/** Path parameters as the path names them: Fastify's `*` renamed, undeclared ones added. */
export function pathParameters (path: string, parameters: Obj[], declare: (name: string) => Obj): Obj[] {
  const out = parameters.map((p) =>
    p.in === 'path' && p.name === '*' ? { ...p, name: 'path', description: p.description ?? 'the rest of the path' } : p
  )
  for (const [, name] of path.matchAll(/\{([^}]+)\}/g)) {
    if (!out.some((p) => p.in === 'path' && p.name === name)) out.push(declare(name))
  }
  return out
}

/** How one description's dialect writes an operation's parts: all that differs between the 2.0 and 3.1 walks. */
export interface OperationDialect {
  parameter: (p: Obj) => Obj
  /** Declares a path parameter the route schema left out. */
  pathParameter: (name: string) => Obj
  response: (r: Obj) => Obj
  /** The `default` response: the error envelope. */
  errorResponse: Obj
  /** The operation's other parts in this dialect (3.1's `requestBody`). */
  extra?: (op: Obj) => Obj
}

/**
 * Every operation of @fastify/swagger's `paths` finished in one dialect: tool-friendly paths,
 * every path parameter declared, the error envelope as the `default` response, summary,
 * operationId, security and tags.
 */
export function finishPaths (paths: Obj | undefined, dialect: OperationDialect): Obj {
  const out: Obj = {}
  for (const [rawPath, item] of Object.entries<Obj>(paths ?? {})) {
    const path = toolPath(rawPath)
    out[path] = {}
    for (const [method, op] of Object.entries<Obj>(item)) {
      if (!METHODS.includes(method)) continue
      const parameters = pathParameters(path, (op.parameters ?? []).map(dialect.parameter), dialect.pathParameter)
      const responses: Obj = {}
      for (const [status, r] of Object.entries<Obj>(op.responses ?? {})) responses[status] = dialect.response(r)
      responses.default = dialect.errorResponse
      const { parameters: _drop, ...rest } = op
      out[path][method] = {
        ...rest,
        ...operationBasics(path, method, op),
        ...(parameters.length > 0 ? { parameters } : {}),
        ...dialect.extra?.(op),
        responses
      }
    }
  }
  return out
}
