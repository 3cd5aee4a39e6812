import { GraphQLError, type ExecutionResult, type GraphQLFormattedError } from 'graphql'
import type { FastifyReply } from 'fastify'
import { normalizeError } from '@svc/core/kit'

interface Formatted {
  statusCode: number
  error: GraphQLFormattedError
}

/** A query the server refused before running it (syntax, unknown field, depth, cost): VALIDATION. */
function refused (e: GraphQLError): Formatted {
  return {
    statusCode: 400,
    error: {
      message: e.message,
      ...(e.locations !== undefined ? { locations: e.locations } : {}),
      extensions: { code: 'VALIDATION' }
    }
  }
}

/**
 * A resolver's error through core's one table (`normalizeError`): the REST envelope's code and
 * details become `extensions`, 500 messages are hidden in production, no stack ever leaves.
 */
function thrown (e: GraphQLError, production: boolean): Formatted {
  const { statusCode, body } = normalizeError(e.originalError, { production })
  const { code, message, details } = body.error
  return {
    statusCode,
    error: {
      message,
      ...(e.locations !== undefined ? { locations: e.locations } : {}),
      ...(e.path !== undefined ? { path: e.path } : {}),
      extensions: { code, ...(details !== undefined ? { details } : {}) }
    }
  }
}

function format (e: GraphQLError, production: boolean): Formatted[] {
  // mercurius refuses a mutation sent with GET (a link or an <img> must never write).
  if ((e.originalError as { code?: unknown } | undefined)?.code === 'MER_ERR_METHOD_NOT_ALLOWED') {
    return [
      {
        statusCode: 405,
        error: {
          message: 'only queries may be sent with GET: send mutations with POST',
          extensions: { code: 'METHOD_NOT_ALLOWED' }
        }
      }
    ]
  }
  const inner = (e.originalError as { errors?: unknown } | undefined)?.errors
  // mercurius wraps every parse/validation/depth error of a query in one MER_ERR_GQL_VALIDATION.
  if (Array.isArray(inner)) {
    return inner.map((x) =>
      refused(x instanceof GraphQLError ? x : new GraphQLError(String((x as Error).message ?? x)))
    )
  }
  const original = e.originalError
  if (original === undefined || original === null || original instanceof GraphQLError) return [refused(e)]
  // Argument coercion (a bad DateTime, an unknown enum value in variables) also ends here as a plain error.
  return [thrown(e, production)]
}

/**
 * mercurius' `errorFormatter`: `extensions.code` is the service's stable code for every error.
 * With data (even partial) the status is 200 as GraphQL over HTTP wants; a request that produced
 * no data answers the status of its first error (401, 403, 404, 400…), like REST.
 */
export function errorFormatter (production: boolean) {
  return (
    execution: ExecutionResult & { errors: readonly GraphQLError[] },
    context?: { reply?: FastifyReply }
  ): { statusCode: number; response: ExecutionResult } => {
    const all = execution.errors.flatMap((e) => {
      const formatted = format(e, production)
      // Fastify logs a REST 5xx; a GraphQL one only leaves through here: log what broke (the client sees INTERNAL).
      if (formatted.some((f) => f.statusCode >= 500)) {
        context?.reply?.log.error({ err: e.originalError ?? e, path: e.path }, 'graphql operation failed')
      }
      return formatted
    })
    const statusCode = execution.data != null ? 200 : (all[0]?.statusCode ?? 400)
    // A budget over time (the tenant's cost budget, the rate limit) says when to come back, as on REST.
    const retry = (all[0]?.error.extensions?.details as { retryAfterSeconds?: unknown } | undefined)?.retryAfterSeconds
    if (statusCode === 429 && typeof retry === 'number') void context?.reply?.header('retry-after', retry)
    return {
      statusCode,
      response: { data: execution.data ?? null, errors: all.map((f) => f.error) as unknown as GraphQLError[] }
    }
  }
}
