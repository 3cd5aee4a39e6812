import type { FastifyInstance, FastifyRequest } from 'fastify'
import { documentedResponse, requestContext as context } from '@svc/core/kit'
import type { WebhooksService } from '../subscriptions/webhooks-service.js'
import {
  CreateBody,
  DeliveryPage,
  IdParams,
  PagingQuery,
  PatchBody,
  SubscriptionPage,
  SubscriptionSchema,
  TestAccepted
} from './schemas.js'

function id (request: FastifyRequest): string {
  return (request.params as { id: string }).id
}

function paging (request: FastifyRequest): { page?: unknown; perPage?: unknown } {
  const q = request.query as { __page?: string; __perPage?: string }
  return { page: q.__page, perPage: q.__perPage }
}

/** The spec's subscription routes (encapsulated, prefix `/api/v1`): thin adapters over WebhooksService. */
export async function webhookRoutes (app: FastifyInstance, opts: { webhooks: WebhooksService }): Promise<void> {
  const { webhooks } = opts
  // Response schemas document the routes; answers stay JSON.stringify'd (core's route-docs.ts).
  app.setSerializerCompiler(documentedResponse)
  app.addHook('onRequest', async (request) => {
    await app.svc.auth.authenticate(request, { allowClient: false })
  })
  app.post(
    '/webhooks',
    {
      schema: {
        summary: 'Subscribe a URL to record events (the secret is returned once)',
        body: CreateBody,
        response: { 201: SubscriptionSchema }
      }
    },
    async (request, reply) => {
      return await reply
        .code(201)
        .send(await webhooks.create(context(request), request.body as { events: string[]; url: string }))
    }
  )
  app.get(
    '/webhooks',
    {
      schema: { summary: "The caller's subscriptions", querystring: PagingQuery, response: { 200: SubscriptionPage } }
    },
    async (request) => await webhooks.list(context(request), paging(request))
  )
  app.get(
    '/webhooks/:id',
    { schema: { summary: 'One subscription', params: IdParams, response: { 200: SubscriptionSchema } } },
    async (request) => await webhooks.get(context(request), id(request))
  )
  app.patch(
    '/webhooks/:id',
    {
      schema: {
        summary: 'Change events or url; { active: true } re-enables',
        params: IdParams,
        body: PatchBody,
        response: { 200: SubscriptionSchema }
      }
    },
    async (request) => {
      return await webhooks.update(
        context(request),
        id(request),
        request.body as { events?: string[]; url?: string; active?: boolean }
      )
    }
  )
  app.delete(
    '/webhooks/:id',
    { schema: { summary: 'Delete a subscription', params: IdParams, response: { 200: SubscriptionSchema } } },
    async (request) => await webhooks.remove(context(request), id(request))
  )
  app.post(
    '/webhooks/:id/test',
    { schema: { summary: 'Send a webhook.test event', params: IdParams, response: { 202: TestAccepted } } },
    async (request, reply) => {
      return await reply.code(202).send(await webhooks.test(context(request), id(request)))
    }
  )
  app.get(
    '/webhooks/:id/deliveries',
    {
      schema: {
        summary: 'Delivery attempts, newest first',
        params: IdParams,
        querystring: PagingQuery,
        response: { 200: DeliveryPage }
      }
    },
    async (request) => {
      return await webhooks.deliveries(context(request), id(request), paging(request))
    }
  )
}
