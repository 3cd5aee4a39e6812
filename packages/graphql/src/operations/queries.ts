import {
  GraphQLBoolean,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLString,
  type GraphQLFieldConfigArgumentMap
} from 'graphql'
import { type ListQuery } from '@svc/core'
import { MAX_PAGE_SIZE } from '@svc/core/kit'
import { searchablePaths } from '@svc/core/kit'
import type { Catalog, Fields, ModelTypes } from '../schema/catalog.js'
import { opPrefix } from '../schema/names.js'
import { costHint } from '../cost/hints.js'
import { idArg, includeDeletedArg, listArgs, listQuery } from './args.js'

/** `<path>ById` and `<path>Many`: the REST get-one and list through the same service calls. */
export function readQueries (c: Catalog, t: ModelTypes): Fields {
  const p = opPrefix(t.model)
  return {
    [`${p}ById`]: {
      type: t.record,
      description: `One ${t.model.path} record of the caller's tenant; NOT_FOUND for an unknown, foreign or deleted id`,
      args: { ...idArg, ...includeDeletedArg(c, t) },
      resolve: async (_root, a: Record<string, unknown>, ctx) =>
        await t.service.get(ctx.svc, a._id as string, { includeDeleted: a.includeDeleted === true })
    },
    [`${p}Many`]: {
      type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(t.record))),
      description: `${t.model.path} records of the caller's tenant, newest first unless sorted`,
      args: listArgs(c, t),
      ...costHint({ kind: 'page', arg: 'limit' }),
      resolve: async (_root, a: Record<string, unknown>, ctx) =>
        await t.service.findMany(ctx.svc, listQuery(t.model, a))
    },
    [`${p}Page`]: {
      type: new GraphQLNonNull(pageType(t)),
      description: `One page of ${t.model.path} records of the caller's tenant (the REST list envelope): nextCursor continues the walk`,
      args: pageArgs(c, t),
      ...costHint({ kind: 'page', arg: 'perPage' }),
      resolve: async (_root, a: Record<string, unknown>, ctx) => await t.service.list(ctx.svc, pageQuery(t, a))
    }
  }
}

/** The list envelope of one schema's records (CONTRACT "Lists: cursors and counts"). */
function pageType (t: ModelTypes): GraphQLObjectType {
  return new GraphQLObjectType({
    name: `${t.record.name}Page`,
    fields: {
      results: { type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(t.record))) },
      totalResults: { type: GraphQLInt, description: 'null with count: false' },
      page: { type: new GraphQLNonNull(GraphQLInt) },
      perPage: { type: new GraphQLNonNull(GraphQLInt) },
      totalPages: { type: GraphQLInt, description: 'null with count: false' },
      nextPage: { type: GraphQLInt },
      prevPage: { type: GraphQLInt },
      nextCursor: { type: GraphQLString, description: 'pass as cursor for the next page; null on the last page' }
    }
  })
}

function pageArgs (c: Catalog, t: ModelTypes): GraphQLFieldConfigArgumentMap {
  const rest = listArgs(c, t)
  delete rest.limit // offset paging is <path>Many's
  delete rest.skip
  return {
    ...rest,
    perPage: { type: GraphQLInt, description: `at most ${MAX_PAGE_SIZE}; default ${c.svc.config.pageSize}` },
    page: { type: GraphQLInt, description: '1-based page; not with cursor' },
    cursor: { type: GraphQLString, description: 'nextCursor of the previous page (same filter, sort and perPage)' },
    count: {
      type: GraphQLBoolean,
      description: 'false skips counting: totalResults and totalPages are null; default true'
    }
  }
}

function pageQuery (t: ModelTypes, a: Record<string, unknown>): ListQuery {
  const q: ListQuery & { limit?: number; skip?: number } = listQuery(t.model, a)
  delete q.limit
  delete q.skip
  if (typeof a.perPage === 'number') q.perPage = a.perPage
  if (typeof a.page === 'number') q.page = a.page
  if (typeof a.cursor === 'string') q.cursor = a.cursor
  if (typeof a.count === 'boolean') q.count = a.count
  return q
}

/** `<path>Search`: text search over the searchable fields (schemas that have some), best match first. */
export function searchQuery (c: Catalog, t: ModelTypes): Fields {
  const fields = searchablePaths(t.model)
  if (fields.length === 0) return {}
  return {
    [`${opPrefix(t.model)}Search`]: {
      type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(t.record))),
      description: `Full-text search of ${t.model.path} over ${fields.join(', ')}, best match first unless sorted`,
      args: {
        q: { type: new GraphQLNonNull(GraphQLString), description: 'whole words; "a phrase"; -word excludes' },
        ...listArgs(c, t)
      },
      ...costHint({ kind: 'page', arg: 'limit' }),
      // Core's text-search rules (length, readable fields) apply: no copy of them here.
      resolve: async (_root, a: Record<string, unknown>, ctx) =>
        await t.service.findMany(ctx.svc, listQuery(t.model, a))
    }
  }
}
