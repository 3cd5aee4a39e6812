import type { FastifyInstance } from 'fastify'
import { ValidationError, type RequestContext, type ResourceService } from '@svc/core'
import {
  documented,
  listEnvelopeSchema,
  documentedInput,
  documentedResponse,
  requestContext as context
} from '@svc/core/kit'

export interface HistoryRoutesOptions {
  services: ResourceService[]
  history: (
    service: ResourceService,
    ctx: RequestContext,
    id: string,
    paging: { page?: unknown; perPage?: unknown }
  ) => Promise<unknown>
}

const PARAMS = new Set(['__page', '__perPage'])

// Checked by the handler (its own messages); the schema documents them.
const page = { type: 'integer', minimum: 1 }
const HistoryQuery = { type: 'object', properties: { __page: page, __perPage: page }, additionalProperties: false }
const Entry = {
  type: 'object',
  additionalProperties: true,
  description: 'one audit entry: action, who, when, before/after images'
}
const HistoryPage = listEnvelopeSchema(Entry)

/**
 * `GET /<path>/:id/history` for the audited schemas of one version (encapsulated, prefix
 * `/api/<version>`). A bearer is required: before-images may hold values an api client's
 * public scope would never show.
 */
export async function historyRoutes (app: FastifyInstance, opts: HistoryRoutesOptions): Promise<void> {
  app.setSerializerCompiler(documentedResponse)
  app.setValidatorCompiler(documentedInput)
  app.addHook('onRequest', async (request) => {
    await app.svc.auth.authenticate(request, { allowClient: false })
  })
  for (const service of opts.services) {
    app.get(
      `/${service.model.path}/:id/history`,
      {
        schema: documented({
          summary: `Change history of a ${service.model.path} record, newest first`,
          params: service.model.schemas.params,
          querystring: HistoryQuery,
          response: { 200: HistoryPage }
        })
      },
      async (request) => {
        const { id } = request.params as { id: string }
        const q = request.query as Record<string, unknown>
        for (const [k, v] of Object.entries(q)) {
          if (!PARAMS.has(k)) {
            throw new ValidationError(`unknown parameter '${k}' (history takes __page and __perPage)`, { field: k })
          }
          if (Array.isArray(v)) throw new ValidationError(`'${k}' is given more than once`, { field: k })
        }
        return await opts.history(service, context(request), id, { page: q.__page, perPage: q.__perPage })
      }
    )
  }
}
