import type { FastifyInstance } from 'fastify'
import { type RequestContext, type ResourceService } from '@svc/core'
import { documented, documentedResponse, requestContext as context } from '@svc/core/kit'

export interface RestoreRoutesOptions {
  services: ResourceService[]
  restore: (service: ResourceService, ctx: RequestContext, id: string) => Promise<unknown>
}

/**
 * `POST /<path>/:id/restore` for the soft-delete schemas of one version (encapsulated, registered
 * with prefix `/api/<version>`). A bearer is required: api clients never write.
 */
export async function restoreRoutes (app: FastifyInstance, opts: RestoreRoutesOptions): Promise<void> {
  // Restore takes no body; a client that still sends `Content-Type: application/json` with an
  // empty (or any) body must not get Fastify's empty-JSON-body 400.
  app.removeContentTypeParser('application/json')
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, _body, done) => {
    done(null, undefined)
  })
  // Response schemas document the routes; answers stay JSON.stringify'd (core's route-docs.ts).
  app.setSerializerCompiler(documentedResponse)
  app.addHook('onRequest', async (request) => {
    await app.svc.auth.authenticate(request, { allowClient: false })
  })
  for (const service of opts.services) {
    const { path, schemas } = service.model
    app.post(
      `/${path}/:id/restore`,
      {
        schema: documented({
          summary: `Restore a soft-deleted ${path} record`,
          params: schemas.params,
          response: { 200: schemas.read }
        })
      },
      async (request) => {
        const { id } = request.params as { id: string }
        return await opts.restore(service, context(request), id)
      }
    )
  }
}
