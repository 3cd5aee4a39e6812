import { Type } from '@sinclair/typebox'
import { listEnvelopeSchema } from '@svc/core/kit'

// Unknown keys are refused by WebhooksService (for every surface), so the bodies stay open here:
// Fastify's Ajv would otherwise drop them silently.
const Events = Type.Array(Type.String({ minLength: 1, maxLength: 200 }), {
  minItems: 1,
  maxItems: 50,
  description: "patterns: '<path>.<action>', '<path>.*' or '*'"
})
const Url = Type.String({ minLength: 1, maxLength: 2048, description: 'receiver URL (http or https, public address)' })

export const CreateBody = Type.Object({ events: Events, url: Url })
export const PatchBody = Type.Object({
  events: Type.Optional(Events),
  url: Type.Optional(Url),
  active: Type.Optional(
    Type.Boolean({ description: 'true re-enables a disabled subscription and resets failureCount' })
  )
})
export const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) })
export const PagingQuery = Type.Object({
  __page: Type.Optional(Type.String({ pattern: '^[0-9]+$' })),
  __perPage: Type.Optional(Type.String({ pattern: '^[0-9]+$' }))
})

const Stamp = Type.String({ format: 'date-time' })
export const SubscriptionSchema = Type.Object({
  _id: Type.String(),
  userId: Type.Union([Type.String(), Type.Null()]),
  events: Type.Array(Type.String()),
  url: Type.String(),
  active: Type.Boolean(),
  failureCount: Type.Integer(),
  lastDeliveryAt: Type.Union([Stamp, Type.Null()]),
  createdAt: Stamp,
  updatedAt: Stamp,
  secret: Type.Optional(Type.String({ description: 'HMAC key of X-Webhook-Signature; only in the create answer' }))
})
export const SubscriptionPage = listEnvelopeSchema(SubscriptionSchema)
export const DeliveryPage = listEnvelopeSchema(
  Type.Object({
    _id: Type.String(),
    subscriptionId: Type.String(),
    deliveryId: Type.String(),
    event: Type.String(),
    attempt: Type.Integer(),
    status: Type.Union([Type.Literal('success'), Type.Literal('failure')]),
    responseCode: Type.Union([Type.Integer(), Type.Null()]),
    durationMs: Type.Number(),
    error: Type.Union([Type.String(), Type.Null()]),
    at: Stamp
  })
)
export const TestAccepted = Type.Object({ deliveryId: Type.String() })
