import { Type, type TSchema } from '@sinclair/typebox'
import type { FastifySchema, FastifySchemaCompiler, FastifySerializerCompiler } from 'fastify'

/**
 * Response schemas on svc routes document the API (Swagger 2.0 and OpenAPI 3.1); they do not
 * shape the answer. Records carry keys their schema cannot list (ACL projections, expanded
 * relations, plugin stamps), and fast-json-stringify would drop undeclared keys or coerce values,
 * so these routes keep serializing with JSON.stringify, exactly as a route without a schema.
 */
export const documentedResponse: FastifySerializerCompiler<unknown> = () => (data) => JSON.stringify(data)

/** For a schema that documents input the handler's service checks itself (its own messages). */
export const documentedInput: FastifySchemaCompiler<unknown> = () => () => true

/** Route options of a svc route whose response schemas are documentation only. */
export const DOCUMENTED = { serializerCompiler: documentedResponse } as const

/** `{ ok: true }`, the answer of actions with nothing else to say. */
export const OkSchema = Type.Object({ ok: Type.Literal(true) })

/** A JSON object whose keys the route does not fix (a manifest, a free-form document). */
export const AnyObject = (description: string): TSchema => Type.Object({}, { additionalProperties: true, description })

/** The `Idempotency-Key` request header of creates. */
export const IdempotencyHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      description: 'a retried create with the same key answers the first result (header Idempotent-Replayed: true)'
    })
  )
})

/** A route schema with the API-description keys (`summary`, `security`…) Fastify's type omits. */
export const documented = (schema: Record<string, unknown>): FastifySchema => schema as FastifySchema

/** The spec's list envelope (records, history, webhook subscriptions and deliveries). */
export const listEnvelopeSchema = (item: object): TSchema =>
  Type.Object({
    results: Type.Array(item as TSchema),
    totalResults: Type.Integer(),
    page: Type.Integer(),
    perPage: Type.Integer(),
    totalPages: Type.Integer(),
    nextPage: Type.Union([Type.Integer(), Type.Null()]),
    prevPage: Type.Union([Type.Integer(), Type.Null()])
  })
