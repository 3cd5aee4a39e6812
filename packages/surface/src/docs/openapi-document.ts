import { ERROR_DESCRIPTION, ERROR_ENVELOPE, finishPaths } from './operations.js'

type Obj = Record<string, any>

const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v)
const SUBSCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'definitions']
const SUBSCHEMA_LISTS = ['anyOf', 'oneOf', 'allOf', 'prefixItems']
const SUBSCHEMAS = ['items', 'additionalProperties', 'not', 'contains', 'if', 'then', 'else']

/**
 * A route schema (TypeBox, Ajv dialect) as OpenAPI 3.1 (JSON Schema 2020-12) says it: Ajv's
 * `nullable` becomes a `null` type, and the 2.0-style `type: 'file'` of uploads binary content.
 */
export function toOpenApi31Schema (input: unknown): unknown {
  if (!isObject(input)) return input
  const out: Obj = {}
  for (const [k, v] of Object.entries(input)) {
    if (k === 'nullable') continue
    if (SUBSCHEMA_MAPS.includes(k) && isObject(v)) {
      out[k] = Object.fromEntries(Object.entries(v).map(([n, s]) => [n, toOpenApi31Schema(s)]))
    } else if (SUBSCHEMA_LISTS.includes(k) && Array.isArray(v)) out[k] = v.map(toOpenApi31Schema)
    else if (SUBSCHEMAS.includes(k)) out[k] = toOpenApi31Schema(v)
    else out[k] = v
  }
  if (out.type === 'file') {
    out.type = 'string'
    out.contentMediaType = 'application/octet-stream'
  }
  if (input.nullable === true && out.type !== undefined) {
    const types = [out.type].flat()
    if (!types.includes('null')) out.type = [...types, 'null']
  }
  return out
}

function content (c: Obj | undefined): Obj | undefined {
  if (c === undefined) return undefined
  return Object.fromEntries(
    Object.entries<Obj>(c).map(([type, media]) => [
      type,
      media.schema === undefined ? media : { ...media, schema: toOpenApi31Schema(media.schema) }
    ])
  )
}

export const SECURITY_SCHEMES = {
  bearer: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: 'access token from POST /login (signed with JWT_SECRET)'
  },
  clientId: {
    type: 'apiKey',
    in: 'header',
    name: 'X-Client-Id',
    description: "an api client id: anonymous, read-only, scoped by the client's role"
  }
}

/**
 * Finishes the OpenAPI 3.1 document @fastify/swagger generated from the same route schemas as
 * the 2.0 one: schemas in 3.1 form, the error envelope as every operation's `default` response,
 * summary, security and tags on every operation, tool-friendly path parameters.
 */
export function finishOpenApiDocument (doc: Obj): Obj {
  const schemas: Obj = Object.fromEntries(
    Object.entries(doc.components?.schemas ?? {}).map(([k, v]) => [k, toOpenApi31Schema(v)])
  )
  schemas.ErrorEnvelope = ERROR_ENVELOPE
  const paths = finishPaths(doc.paths, {
    parameter: (p) => (p.schema === undefined ? p : { ...p, schema: toOpenApi31Schema(p.schema) }),
    pathParameter: (name) => ({ name, in: 'path', required: true, schema: { type: 'string' } }),
    response: (r) => (r.content === undefined ? r : { ...r, content: content(r.content) }),
    errorResponse: {
      description: ERROR_DESCRIPTION,
      content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } }
    },
    extra: (op) =>
      op.requestBody !== undefined
        ? { requestBody: { ...op.requestBody, content: content(op.requestBody.content) } }
        : {}
  })
  return {
    ...doc,
    servers: doc.servers?.length > 0 ? doc.servers : [{ url: '/' }],
    components: { ...doc.components, schemas, securitySchemes: SECURITY_SCHEMES },
    paths
  }
}
