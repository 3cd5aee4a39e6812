import type { FastifyInstance } from 'fastify'
import { AnyObject, DOCUMENTED } from './route-docs.js'

/**
 * `GET /_describe`: the public introspection manifest (spec, "Framework routes"). Built at request
 * time from `app.svc.manifest`, so plugins registered after core (soft delete, audit) count.
 * A host that wants it private puts authentication in front of it (spec, API authentication 5).
 */
export function describeRoute (app: FastifyInstance): void {
  app.get(
    '/_describe',
    {
      schema: {
        summary: 'The introspection manifest: schemas, fields, endpoints, features',
        security: [],
        response: { 200: AnyObject('the manifest (spec, _describe)') }
      },
      ...DOCUMENTED
    },
    async () => app.svc.manifest.describe()
  )
}
