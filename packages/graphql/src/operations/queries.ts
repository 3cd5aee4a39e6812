import { GraphQLList, GraphQLNonNull, GraphQLString } from 'graphql'
import { searchablePaths } from '@svc/core'
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
      resolve: async (_root, a: Record<string, unknown>, ctx) => await t.service.get(ctx.svc, a._id as string, { includeDeleted: a.includeDeleted === true })
    },
    [`${p}Many`]: {
      type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(t.record))),
      description: `${t.model.path} records of the caller's tenant, newest first unless sorted`,
      args: listArgs(c, t),
      ...costHint({ kind: 'page', arg: 'limit' }),
      resolve: async (_root, a: Record<string, unknown>, ctx) => await t.service.findMany(ctx.svc, listQuery(t.model, a))
    }
  }
}

/** `<path>Search`: text search over the searchable fields (schemas that have some), best match first. */
export function searchQuery (c: Catalog, t: ModelTypes): Fields {
  const fields = searchablePaths(t.model)
  if (fields.length === 0) return {}
  return {
    [`${opPrefix(t.model)}Search`]: {
      type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(t.record))),
      description: `Full-text search of ${t.model.path} over ${fields.join(', ')}, best match first unless sorted`,
      args: { q: { type: new GraphQLNonNull(GraphQLString), description: 'whole words; "a phrase"; -word excludes' }, ...listArgs(c, t) },
      ...costHint({ kind: 'page', arg: 'limit' }),
      // Core's text-search rules (length, readable fields) apply: no copy of them here.
      resolve: async (_root, a: Record<string, unknown>, ctx) => await t.service.findMany(ctx.svc, listQuery(t.model, a))
    }
  }
}
