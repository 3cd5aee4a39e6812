import {
  GraphQLBoolean,
  GraphQLID,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  type GraphQLFieldConfigArgumentMap
} from 'graphql'
import { type ListQuery } from '@svc/core'
import { MAX_PAGE_SIZE, type ResourceModel } from '@svc/core/kit'
import { toCoreFilter } from '../schema/filter-inputs.js'
import type { Catalog, ModelTypes } from '../schema/catalog.js'

export const idArg = { _id: { type: new GraphQLNonNull(GraphQLID) } }

/** `includeDeleted` exists only where soft delete is effective (it means nothing elsewhere). */
export function includeDeletedArg (c: Catalog, t: ModelTypes): GraphQLFieldConfigArgumentMap {
  return c.softDelete(t.model)
    ? {
        includeDeleted: { type: GraphQLBoolean, description: 'also return deleted (restorable) records; default false' }
      }
    : {}
}

/** `filter, sort, limit, skip` (+ `includeDeleted`): the CONTRACT's list arguments. */
export function listArgs (c: Catalog, t: ModelTypes): GraphQLFieldConfigArgumentMap {
  return {
    filter: { type: t.filter },
    sort: { type: new GraphQLList(new GraphQLNonNull(t.sort)), description: 'default createdAt_DESC' },
    limit: { type: GraphQLInt, description: `at most ${MAX_PAGE_SIZE}; default ${c.svc.config.pageSize}` },
    skip: { type: GraphQLInt, description: 'records to pass over; default 0' },
    ...includeDeletedArg(c, t)
  }
}

/** List arguments as the service's query (offset paging). */
export function listQuery (
  model: ResourceModel,
  a: Record<string, unknown>
): ListQuery & { skip?: number; limit?: number } {
  const q: ListQuery & { skip?: number; limit?: number } = {}
  const filter = toCoreFilter(model, a.filter as Record<string, unknown> | null | undefined)
  if (filter !== undefined) q.filter = filter
  if (Array.isArray(a.sort) && a.sort.length > 0) q.sort = a.sort as string[]
  if (typeof a.limit === 'number') q.limit = a.limit
  if (typeof a.skip === 'number') q.skip = a.skip
  if (a.includeDeleted === true) q.includeDeleted = true
  if (typeof a.q === 'string') q.q = a.q
  return q
}
