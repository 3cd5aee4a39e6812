import { toSwagger2Parameter, toSwagger2Schema } from './swagger2-schema.js'

type Obj = Record<string, any>

/** The `{ error: { code, message, details? } }` envelope every failure answers with. */
export const ERROR_ENVELOPE = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: {
        code: { type: 'string', description: 'stable error code', example: 'VALIDATION', enum: ['VALIDATION', 'INVALID_TRANSITION', 'UNAUTHENTICATED', 'UNLINKED', 'FORBIDDEN', 'NOT_FOUND', 'METHOD_NOT_ALLOWED', 'REQUEST_TIMEOUT', 'CONFLICT', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE', 'RATE_LIMITED', 'HEADERS_TOO_LARGE', 'INTERNAL', 'QUERY_TIMEOUT', 'SERVICE_UNAVAILABLE'] },
        message: { type: 'string', example: 'title is required' },
        details: { type: 'object', description: 'code-specific: field, issues, keys, current/attempted/allowed…' }
      }
    }
  }
}

export const SECURITY_DEFINITIONS = {
  bearer: { type: 'apiKey', in: 'header', name: 'Authorization', description: '`Bearer <access token>` from POST /login' },
  clientId: { type: 'apiKey', in: 'header', name: 'X-Client-Id', description: 'an api client id: anonymous, read-only, scoped by the client\'s role' }
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch']

/** Who may call a route: the data API takes a bearer, and an api client on reads. */
function security (path: string, method: string): Array<Record<string, string[]>> | undefined {
  if (path.startsWith('/api/')) return method === 'get' ? [{ bearer: [] }, { clientId: [] }] : [{ bearer: [] }]
  if (path === '/mcp') return [{ bearer: [] }, { clientId: [] }]
  return undefined
}

/** Groups operations in the UI: one tag per schema path, `auth`, then everything else. */
function tag (path: string): string {
  const m = /^\/api\/[^/]+\/([^/]+)/.exec(path)
  if (m !== null) return m[1].replace(/-schema$/, '')
  if (/^\/(login|register|auth)(\/|$)/.test(path)) return 'auth'
  return 'service'
}

/**
 * Finishes the document @fastify/swagger generated from the route schemas: schemas and
 * parameters in 2.0 form, every path parameter declared, the error envelope as each operation's
 * `default` response, security per operation, tags.
 */
export function finishDocument (doc: Obj): Obj {
  const definitions: Obj = Object.fromEntries(Object.entries(doc.definitions ?? {}).map(([k, v]) => [k, toSwagger2Schema(v)]))
  definitions.ErrorEnvelope = ERROR_ENVELOPE
  const paths: Obj = {}
  for (const [path, item] of Object.entries<Obj>(doc.paths ?? {})) {
    const names = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1])
    paths[path] = {}
    for (const [method, op] of Object.entries<Obj>(item)) {
      if (!METHODS.includes(method)) continue
      const parameters: Obj[] = (op.parameters ?? []).map(toSwagger2Parameter)
      for (const name of names) {
        if (!parameters.some((p) => p.in === 'path' && p.name === name)) parameters.push({ name, in: 'path', required: true, type: 'string' })
      }
      const responses: Obj = {}
      for (const [status, r] of Object.entries<Obj>(op.responses ?? {})) responses[status] = r.schema === undefined ? r : { ...r, schema: toSwagger2Schema(r.schema) }
      responses.default = { description: 'Error: `{ error: { code, message, details? } }` with a stable code', schema: { $ref: '#/definitions/ErrorEnvelope' } }
      const sec = security(path, method)
      paths[path][method] = {
        ...op,
        tags: op.tags ?? [tag(path)],
        ...(parameters.length > 0 ? { parameters } : { parameters: undefined }),
        responses,
        ...(sec !== undefined ? { security: sec } : {})
      }
      if (paths[path][method].parameters === undefined) delete paths[path][method].parameters
    }
  }
  return { ...doc, securityDefinitions: SECURITY_DEFINITIONS, definitions, paths }
}
