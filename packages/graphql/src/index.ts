import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { graphqlRoute } from './http/graphql-route.js'
import { buildSchema } from './build-schema.js'
import type { GraphqlOptions } from './types.js'

export type { GraphqlOptions, GqlContext } from './types.js'
export { buildSchema } from './build-schema.js'

const DEFAULT_MAX_DEPTH = 10

function positiveInt (name: string, v: number): number {
  if (!Number.isInteger(v) || v < 1) throw new Error(`@svc/graphql: option \`${name}\` must be a positive integer`)
  return v
}

function nonNegativeInt (name: string, v: number): number {
  if (!Number.isInteger(v) || v < 0) throw new Error(`@svc/graphql: option \`${name}\` must be an integer >= 0`)
  return v
}

async function svcGraphql (app: FastifyInstance, opts: GraphqlOptions): Promise<void> {
  const path = opts.path ?? '/graphql'
  if (!/^\/[\w\-/.]*$/.test(path)) throw new Error('@svc/graphql: option `path` must be a URL path such as /graphql')
  const production = opts.production ?? process.env.NODE_ENV === 'production'
  const maxDepth = positiveInt('maxDepth', opts.maxDepth ?? DEFAULT_MAX_DEPTH)

  // Built now: mercurius needs the schema at registration. Soft delete and audit decide which
  // arguments and operations exist, so they must be registered first (checked on ready).
  const built = buildSchema(app.svc)
  const seen = {
    softDelete: app.svc.softDelete !== undefined,
    audit: app.svc.audit !== undefined,
    realtime: app.svc.realtime !== undefined
  }
  app.addHook('onReady', async () => {
    for (const [name, loaded] of Object.entries(seen)) {
      if (!loaded && app.svc[name as 'softDelete' | 'audit' | 'realtime'] !== undefined) {
        throw new Error(
          `@svc/graphql: register @svc/${name.toLowerCase()} before @svc/graphql (its operations and arguments are generated at registration)`
        )
      }
    }
  })
  app.svc.features.graphql = true
  app.svc.manifest.contribute((model) => ({ graphql: built.names.get(model.key) ?? { queries: [], mutations: [] } }))

  await app.register(graphqlRoute, {
    path,
    built,
    production,
    graphiql: opts.graphiql ?? !production,
    introspection: opts.introspection ?? !production,
    maxDepth,
    persistedQueries: opts.persistedQueries ?? true,
    jit: nonNegativeInt('jit', opts.jit ?? 1),
    keepAliveMs: Math.round((app.svc.realtime?.settings.heartbeatSeconds ?? 15) * 1000)
  })
}

export default fp(svcGraphql, { name: '@svc/graphql', fastify: '5.x', dependencies: ['@svc/core'] })
export { svcGraphql }
