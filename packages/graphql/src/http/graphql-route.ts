import type { FastifyInstance, FastifyRequest } from 'fastify'
import mercurius, { type MercuriusLoaders } from 'mercurius'
import { NoSchemaIntrospectionCustomRule } from 'graphql'
import { type RequestContext } from '@svc/core'
import { requestContext } from '@svc/core/kit'
import { errorFormatter } from '../errors.js'
import { costGuard } from '../cost/guard.js'
import type { Built } from '../build-schema.js'
import { subscriptionGuard, wsOptions } from '../subscriptions/ws-options.js'

/** Queries an automatic-persisted-query cache keeps (least recently used go first). */
const APQ_CACHE_SIZE = 1024
/**
 * A document's tokens (Apollo Router's default order of magnitude): parsing stops there, so a
 * cheap-to-price but huge document costs neither parse time nor memory. 500 aliased creates fit.
 */
export const MAX_DOCUMENT_TOKENS = 10_000
/**
 * Documents mercurius keeps parsed (valid ones, and as many refused): a parsed document holds
 * ≈ 290 bytes per token, so at most ≈ 2 × 64 × 2.9 MB whatever a client sends (1024 by default:
 * distinct cheap documents then grew the process by gigabytes).
 */
export const PARSE_CACHE_SIZE = 64

export interface GraphqlRouteOptions {
  path: string
  built: Built
  production: boolean
  graphiql: boolean
  introspection: boolean
  maxDepth: number
  persistedQueries: boolean
  jit: number
  /** Keep-alive pings of subscription sockets (the feed's heartbeat). */
  keepAliveMs: number
}

/**
 * Same credentials as REST: a bearer token (a user) or `X-Client-Id` (a read-only api client).
 * A request with neither reaches the resolvers without an identity, so each operation answers
 * UNAUTHENTICATED like REST while introspection (outside production) stays open; a bad
 * credential is refused for the whole request (401).
 */
async function authenticate (app: FastifyInstance, request: FastifyRequest): Promise<void> {
  if (request.headers.authorization === undefined && request.headers['x-client-id'] === undefined) return
  await app.svc.auth.authenticate(request, { allowClient: true })
}

/** mercurius in its own encapsulated context: its error handler and auth hook stay on its routes. */
export async function graphqlRoute (app: FastifyInstance, opts: GraphqlRouteOptions): Promise<void> {
  app.addHook('onRequest', async (request) => {
    await authenticate(app, request)
  })
  await app.register(mercurius, {
    schema: opts.built.schema,
    loaders: opts.built.loaders as MercuriusLoaders,
    path: opts.path,
    graphiql: opts.graphiql,
    jit: opts.jit,
    cache: PARSE_CACHE_SIZE,
    graphql: { parseOptions: { maxTokens: MAX_DOCUMENT_TOKENS } },
    validationRules: opts.introspection ? [] : [NoSchemaIntrospectionCustomRule],
    errorFormatter: errorFormatter(opts.production),
    ...(opts.persistedQueries
      ? { persistedQueryProvider: mercurius.persistedQueryDefaults.automatic(APQ_CACHE_SIZE) }
      : {}),
    context: (request): { svc: RequestContext } => ({ svc: requestContext(request, 'graphql') }),
    // `<path>Events` over graphql-ws on the same path (see subscriptions/).
    ...(opts.built.subscriptions ? { subscription: wsOptions(app, opts.keepAliveMs) } : {})
  })
  // Depth and price are core's cost model applied to the document (see cost/): introspection is
  // priced like data and left out of the depth, so GraphiQL's and codegen's query runs.
  const guard = costGuard({ schema: opts.built.schema, svc: app.svc, maxDepth: opts.maxDepth })
  app.graphql.addHook('preValidation', guard.preValidation)
  app.graphql.addHook('preExecution', guard.preExecution)
  if (opts.built.subscriptions) app.graphql.addHook('preSubscriptionExecution', subscriptionGuard(guard))
}
