import { GraphQLError, GraphQLList, GraphQLNonNull, GraphQLString } from 'graphql'
import { ValidationError, type RequestContext } from '@svc/core'
import { identityContext, normalizeError } from '@svc/core/kit'
import type { RealtimeApi } from '@svc/realtime'
import type { Catalog, Fields, ModelTypes } from '../schema/catalog.js'
import { opPrefix } from '../schema/names.js'
import type { GqlContext } from '../types.js'
import { EventQueue, type QueuedEvent } from './event-queue.js'
import { eventType } from './events-type.js'

/** Live events a subscription may have waiting for its socket before it counts as a slow consumer. */
export const MAX_QUEUED_EVENTS = 1000

/** A service error as GraphQL reports it: the stable code and details in `extensions`, as queries do. */
export function graphqlError (err: unknown): GraphQLError {
  if (err instanceof GraphQLError) return err
  const { body } = normalizeError(err, { production: true })
  const { code, message, details } = body.error
  return new GraphQLError(message, { extensions: { code, ...(details !== undefined ? { details } : {}) } })
}

/** `types` of one schema's subscription: its patterns, bare actions (`created`) or `*`; another schema's is 400. */
function patterns (t: ModelTypes, types: readonly string[] | null | undefined): string[] {
  const { path } = t.model
  if (types == null || types.length === 0) return [`${path}.*`]
  return types.map((p) => {
    if (p === '*') return `${path}.*`
    if (!p.includes('.')) return `${path}.${p}`
    if (p.slice(0, p.lastIndexOf('.')) !== path) {
      throw new ValidationError(`types: '${p}' is not an event of ${path}`, { field: 'types', invalid: [p] })
    }
    return p
  })
}

function shape (item: QueuedEvent): Record<string, unknown> {
  if ('reset' in item) return { cursor: item.reset, type: 'reset' }
  return { cursor: item.cursor, ...item.data }
}

/**
 * `<path>Events(types, lastEventId)`: the realtime feed of one schema, with the feed's scope,
 * ACL, resume and stream limit (the subscription holds one of the tenant's stream slots).
 * Resolves once live; errors carry the service's codes.
 */
export function eventSubscriptions (
  catalog: Catalog,
  realtime: RealtimeApi
): { fields: Fields; names: Map<string, string[]> } {
  const fields: Fields = {}
  const names = new Map<string, string[]>()
  for (const t of catalog.all()) {
    const name = `${opPrefix(t.model)}Events`
    fields[name] = {
      type: new GraphQLNonNull(eventType(t, catalog.softDelete(t.model))),
      description: `${t.model.path} record events of the caller's scope as they happen; lastEventId resumes after a cursor`,
      args: {
        types: {
          type: new GraphQLList(new GraphQLNonNull(GraphQLString)),
          description: `'${t.model.path}.created', 'updated', '*'… (default: all)`
        },
        lastEventId: {
          type: GraphQLString,
          description: 'a cursor from an earlier event: replay what came after it, then live'
        }
      },
      subscribe: async (
        _root: unknown,
        args: { types?: string[] | null; lastEventId?: string | null },
        context: GqlContext
      ) => {
        try {
          const ctx: RequestContext = context.svc ?? identityContext(null, 'graphql')
          const socket = (context as { request?: { raw?: { socket?: { destroy: () => void } } } }).request?.raw?.socket
          const queue = new EventQueue(MAX_QUEUED_EVENTS, () => {
            socket?.destroy()
          })
          const sub = await realtime.open(
            ctx,
            {
              types: patterns(t, args.types),
              schemas: [t.model.key],
              ...(args.lastEventId != null ? { lastEventId: args.lastEventId } : {})
            },
            queue
          )
          queue.onReturn = () => {
            sub.close()
          }
          sub.start()
          return queue
        } catch (err) {
          throw graphqlError(err)
        }
      },
      resolve: (item: unknown) => shape(item as QueuedEvent)
    }
    names.set(t.model.key, [name])
  }
  return { fields, names }
}
