import {
  GraphQLBoolean,
  GraphQLEnumType,
  GraphQLFloat,
  GraphQLID,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLString,
  type GraphQLFieldConfigArgumentMap,
  type GraphQLScalarType
} from 'graphql'
import { AGGREGATION_PRICE } from '@svc/core/kit'
import type { Catalog, Fields, ModelTypes } from '../schema/catalog.js'
import { capitalize, opPrefix } from '../schema/names.js'
import { DateTimeScalar, JsonScalar } from '../schema/scalars.js'
import { idArg } from './args.js'
import { costHint } from '../cost/hints.js'

const PARAM_TYPES: Record<string, GraphQLScalarType> = {
  string: GraphQLString,
  number: GraphQLFloat,
  boolean: GraphQLBoolean,
  date: DateTimeScalar
}

/**
 * One query per declared aggregation, `<path><Name>` (`dealsByStage`), its params as typed
 * arguments; the service prepends the caller's tenant and gates `unsafe` ones to `acl.list` roles.
 */
export function aggregationQueries (t: ModelTypes, taken: (name: string) => boolean): Fields {
  const out: Fields = {}
  for (const a of t.model.aggregations) {
    const name = `${opPrefix(t.model)}${capitalize(a.name)}`
    if (taken(name) || Object.hasOwn(out, name)) {
      throw new Error(
        `@svc/graphql: aggregation '${a.name}' of ${t.model.path} would be the GraphQL query ${name}, which another operation already has; rename the aggregation`
      )
    }
    const args: GraphQLFieldConfigArgumentMap = {}
    for (const p of a.params) {
      const type = PARAM_TYPES[p.kind]
      args[p.name] = { type: p.required ? new GraphQLNonNull(type) : type }
    }
    out[name] = {
      type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(JsonScalar))),
      description:
        a.description ??
        `The ${a.name} aggregation of ${t.model.path} (the caller's records)${a.unsafe ? '; roles in acl.list only' : ''}`,
      args,
      ...costHint({ kind: 'flat', price: AGGREGATION_PRICE }),
      resolve: async (_r, raw: Record<string, unknown>, ctx) => {
        const params = Object.fromEntries(Object.entries(raw).filter(([, v]) => v !== undefined && v !== null))
        return (await t.service.aggregations.run(ctx.svc, a.name, params)).results
      }
    }
  }
  return out
}

const HistoryEntry = new GraphQLObjectType({
  name: 'HistoryEntry',
  description: 'One audit row: what a write changed, who made it, when',
  fields: {
    _id: { type: new GraphQLNonNull(GraphQLID) },
    action: { type: new GraphQLNonNull(GraphQLString), description: 'create, update, delete, restore or transition' },
    recordId: { type: new GraphQLNonNull(GraphQLID) },
    userId: { type: GraphQLString },
    actor: { type: JsonScalar },
    before: { type: JsonScalar, description: 'the record before, projected by your read ACL' },
    after: { type: JsonScalar },
    diff: { type: JsonScalar },
    at: { type: DateTimeScalar }
  }
})

const HistoryPage = new GraphQLObjectType({
  name: 'HistoryPage',
  fields: {
    results: { type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(HistoryEntry))) },
    totalResults: { type: new GraphQLNonNull(GraphQLInt) },
    page: { type: new GraphQLNonNull(GraphQLInt) },
    perPage: { type: new GraphQLNonNull(GraphQLInt) },
    totalPages: { type: new GraphQLNonNull(GraphQLInt) },
    nextPage: { type: GraphQLInt },
    prevPage: { type: GraphQLInt }
  }
})

/** The schemas `historyByDoc` serves: audit on and @svc/audit loaded. */
export function audited (c: Catalog): ModelTypes[] {
  return c.history === undefined ? [] : c.all().filter((t) => c.audit(t.model))
}

/** `historyByDoc(path, _id)`: a record's audit rows, newest first, for a caller who can read the record. */
export function historyQuery (c: Catalog): Fields {
  const history = c.history
  const models = audited(c)
  if (history === undefined || models.length === 0) return {}
  const AuditedPath = new GraphQLEnumType({
    name: 'AuditedPath',
    values: Object.fromEntries(models.map((t) => [opPrefix(t.model), { value: t.model }]))
  })
  return {
    historyByDoc: {
      type: HistoryPage,
      description: "A record's history (audit rows), newest first; NOT_FOUND when you cannot read the record",
      args: {
        path: { type: new GraphQLNonNull(AuditedPath) },
        ...idArg,
        page: { type: GraphQLInt },
        perPage: { type: GraphQLInt }
      },
      ...costHint({ kind: 'page', arg: 'perPage' }),
      resolve: async (_r, a: Record<string, unknown>, ctx) => {
        const model = a.path as ModelTypes['model']
        const paging = {
          ...(typeof a.page === 'number' ? { page: a.page } : {}),
          ...(typeof a.perPage === 'number' ? { perPage: a.perPage } : {})
        }
        return await history(ctx.svc, model.path, a._id as string, paging, model.version)
      }
    }
  }
}
