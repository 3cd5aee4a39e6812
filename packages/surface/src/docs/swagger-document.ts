import { toSwagger2Parameter, toSwagger2Schema } from './swagger2-schema.js'
import { ERROR_DESCRIPTION, ERROR_ENVELOPE, finishPaths } from './operations.js'

type Obj = Record<string, any>

export { ERROR_ENVELOPE }

export const SECURITY_DEFINITIONS = {
  bearer: {
    type: 'apiKey',
    in: 'header',
    name: 'Authorization',
    description: '`Bearer <access token>` from POST /login (signed with JWT_SECRET)'
  },
  clientId: {
    type: 'apiKey',
    in: 'header',
    name: 'X-Client-Id',
    description: "an api client id: anonymous, read-only, scoped by the client's role"
  }
}

/**
 * Finishes the Swagger 2.0 document @fastify/swagger generated from the route schemas: schemas
 * and parameters in 2.0 form, every path parameter declared, the error envelope as each
 * operation's `default` response, summary, security and tags on every operation.
 */
export function finishDocument (doc: Obj): Obj {
  const definitions: Obj = Object.fromEntries(
    Object.entries(doc.definitions ?? {}).map(([k, v]) => [k, toSwagger2Schema(v)])
  )
  definitions.ErrorEnvelope = ERROR_ENVELOPE
  const paths = finishPaths(doc.paths, {
    parameter: toSwagger2Parameter,
    pathParameter: (name) => ({ name, in: 'path', required: true, type: 'string' }),
    response: (r) => (r.schema === undefined ? r : { ...r, schema: toSwagger2Schema(r.schema) }),
    errorResponse: { description: ERROR_DESCRIPTION, schema: { $ref: '#/definitions/ErrorEnvelope' } }
  })
  return { ...doc, securityDefinitions: SECURITY_DEFINITIONS, definitions, paths }
}
