import type { DocumentNode, GraphQLSchema } from 'graphql'
import { ValidationError, type RequestContext, type SvcContext } from '@svc/core'
import type { FastifyRequest } from 'fastify'
import { analyse } from './analysis.js'
import { introspectionTotals } from './introspection.js'

interface HookContext {
  svc?: RequestContext
  reply?: { request: FastifyRequest }
}

export interface CostGuardOptions {
  schema: GraphQLSchema
  svc: SvcContext
  maxDepth: number
}

/**
 * The document's price against core's budgets, in two mercurius hooks. Before validation (new
 * documents only): the depth limit and a lower-bound price (variables unknown count 1), so an
 * oversized document is refused before graphql-js validates it. Before execution (every
 * request): the exact price is charged to the request and the tenant through core's
 * `cost.chargeRequest` (400 over the request limit, 429 past the tenant's minute), each aliased
 * mutation counts as a request against the rate limits, and the service then skips charging
 * the operations one by one (`priced`).
 */
export function costGuard (o: CostGuardOptions): {
  preValidation: (schema: GraphQLSchema, document: DocumentNode, context: HookContext) => Promise<void>
  preExecution: (
    schema: GraphQLSchema,
    document: DocumentNode,
    context: HookContext,
    variables?: Record<string, unknown>
  ) => Promise<void>
} {
  const base = { schema: o.schema, pageSize: o.svc.config.pageSize, introspection: introspectionTotals(o.schema) }
  return {
    preValidation: async (_schema, document) => {
      const { cost, depth } = analyse(document, { ...base, variables: null })
      o.svc.cost.check(cost)
      if (depth > o.maxDepth) {
        throw new ValidationError(`query depth ${depth} exceeds the limit of ${o.maxDepth}`, {
          depth,
          limit: o.maxDepth
        })
      }
    },
    preExecution: async (_schema, document, context, variables) => {
      const { cost, mutations } = analyse(document, { ...base, variables: variables ?? {} })
      o.svc.cost.check(cost)
      // The request itself was counted when it arrived; each further mutation is one more.
      const request = context.reply?.request
      if (mutations > 1 && request?.countRequests !== undefined) await request.countRequests(mutations - 1)
      const ctx = context.svc
      if (ctx === undefined) return
      await o.svc.cost.chargeRequest(ctx, cost)
      ctx.priced = true
    }
  }
}
