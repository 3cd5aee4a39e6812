import type { FastifyInstance, FastifyRequest } from 'fastify'
import { ValidationError, type RequestContext, type ResourceService } from '@svc/core'

export interface HistoryRoutesOptions {
  services: ResourceService[]
  history: (service: ResourceService, ctx: RequestContext, id: string, paging: { page?: unknown, perPage?: unknown }) => Promise<unknown>
}

function context (request: FastifyRequest): RequestContext {
  return { identity: request.identity, surface: 'rest', req: request, requestId: request.id }
}

const PARAMS = new Set(['__page', '__perPage'])

/**
 * `GET /<path>/:id/history` for the audited schemas of one version (encapsulated, prefix
 * `/api/<version>`). A bearer is required: before-images may hold values an api client's
 * public scope would never show.
 */
export async function historyRoutes (app: FastifyInstance, opts: HistoryRoutesOptions): Promise<void> {
  app.addHook('onRequest', async (request) => {
    await app.svc.auth.authenticate(request, { allowClient: false })
  })
  for (const service of opts.services) {
    app.get(`/${service.model.path}/:id/history`, async (request) => {
      const { id } = request.params as { id: string }
      const q = request.query as Record<string, unknown>
      for (const [k, v] of Object.entries(q)) {
        if (!PARAMS.has(k)) throw new ValidationError(`unknown parameter '${k}' (history takes __page and __perPage)`, { field: k })
        if (Array.isArray(v)) throw new ValidationError(`'${k}' is given more than once`, { field: k })
      }
      return await opts.history(service, context(request), id, { page: q.__page, perPage: q.__perPage })
    })
  }
}
