import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { RequestContext } from '../identity.js'
import type { ResourceService } from '../service/resource-service.js'

/**
 * `GET /<path>/aggregations/<name>`: declared params as query parameters, answered with
 * `{ results }` (CONTRACT.md). Registered inside the resource's child plugin, so it shares its
 * authentication hook; casting, tenancy, `unsafe` and caching live in the service.
 */
export function aggregationRoutes (app: FastifyInstance, service: ResourceService, context: (request: FastifyRequest) => RequestContext): void {
  if (service.model.aggregations.length === 0) return
  app.get(`/${service.model.path}/aggregations/:name`, async (request) => {
    const { name } = request.params as { name: string }
    return await service.aggregations.run(context(request), name, { ...(request.query as Record<string, unknown>) })
  })
}
