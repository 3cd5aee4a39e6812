import type { MercuriusContext } from 'mercurius'
import type { RequestContext } from '@svc/core'

/** Options of the @svc/graphql plugin. */
export interface GraphqlOptions {
  /** Where the endpoint is mounted; default `/graphql`. */
  path?: string
  /** Serve GraphiQL at `/graphiql`; default: outside production only. */
  graphiql?: boolean
  /** Answer introspection queries (`__schema`, `__type`); default: outside production only. */
  introspection?: boolean
  /**
   * Deepest selection nesting a query may have; default 10. Introspection (`__schema`, `__type`)
   * is not counted: its depth is the schema's, and its price is counted like any other field's.
   * The price limit is core's (`maxRequestCost`).
   */
  maxDepth?: number
  /**
   * Automatic persisted queries (the Apollo protocol: a client sends a query's SHA-256 first and
   * the query only when the server does not know it yet), cached per process; default true.
   */
  persistedQueries?: boolean
  /**
   * Compile a query to JavaScript (graphql-jit, through mercurius) once it has been seen this
   * many times; `0` never compiles. Default 1: the second request of a query shape on runs compiled.
   */
  jit?: number
  /** Hide the messages of unexpected (500) errors; default `NODE_ENV === 'production'`, like core. */
  production?: boolean
}

/** What every resolver receives: mercurius' context plus the caller's service context. */
export interface GqlContext extends MercuriusContext {
  svc: RequestContext
}
