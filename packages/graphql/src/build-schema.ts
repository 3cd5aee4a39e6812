import { GraphQLObjectType, GraphQLSchema } from 'graphql'
import type { MercuriusLoaders } from 'mercurius'
import type { SvcContext } from '@svc/core'
import type { ResourceModel } from '@svc/core/kit'
import { restoreMutation, transitionMutations, writeMutations } from './operations/mutations.js'
import { readQueries, searchQuery } from './operations/queries.js'
import { aggregationQueries, audited, historyQuery } from './operations/reports.js'
import { relationFields, relationLoaders } from './operations/relations.js'
import type { GqlContext } from './types.js'
import { Catalog, type Fields } from './schema/catalog.js'
import { eventSubscriptions } from './subscriptions/event-fields.js'

export interface Built {
  schema: GraphQLSchema
  loaders: MercuriusLoaders<GqlContext>
  /** Operation names per schema key, for `_describe`. */
  names: Map<string, { queries: string[]; mutations: string[]; subscriptions?: string[] }>
  /** `<path>Events` subscriptions are served (@svc/realtime was registered first). */
  subscriptions: boolean
}

/** The whole GraphQL schema from the finished registry and the plugins loaded before this one. */
export function buildSchema (svc: SvcContext): Built {
  const catalog = new Catalog(svc, relationFields)
  const queries: Fields = {}
  const mutations: Fields = {}
  const names: Built['names'] = new Map()
  const add = (model: ResourceModel, into: Fields, kind: 'queries' | 'mutations', fields: Fields): void => {
    Object.assign(into, fields)
    const entry = names.get(model.key) ?? { queries: [], mutations: [] }
    entry[kind].push(...Object.keys(fields))
    names.set(model.key, entry)
  }
  for (const t of catalog.all()) {
    add(t.model, queries, 'queries', readQueries(catalog, t))
    add(t.model, queries, 'queries', searchQuery(catalog, t))
    add(
      t.model,
      queries,
      'queries',
      aggregationQueries(t, (name) => Object.hasOwn(queries, name))
    )
    add(t.model, mutations, 'mutations', writeMutations(catalog, t))
    add(t.model, mutations, 'mutations', restoreMutation(catalog, t))
    add(t.model, mutations, 'mutations', transitionMutations(t))
  }
  const history = historyQuery(catalog)
  Object.assign(queries, history)
  // One root field serves every audited schema; each lists it, as its history operation.
  for (const t of audited(catalog)) names.get(t.model.key)?.queries.push(...Object.keys(history))
  // The realtime feed's events as subscriptions, when @svc/realtime is loaded.
  const events = svc.realtime === undefined ? null : eventSubscriptions(catalog, svc.realtime)
  for (const [key, subs] of events?.names ?? []) {
    const entry = names.get(key)
    if (entry !== undefined) entry.subscriptions = subs
  }
  const schema = new GraphQLSchema({
    query: new GraphQLObjectType({ name: 'Query', fields: queries }),
    ...(Object.keys(mutations).length > 0
      ? { mutation: new GraphQLObjectType({ name: 'Mutation', fields: mutations }) }
      : {}),
    ...(events !== null ? { subscription: new GraphQLObjectType({ name: 'Subscription', fields: events.fields }) } : {})
  })
  return { schema, loaders: relationLoaders(catalog), names, subscriptions: events !== null }
}
