import { GraphQLList, GraphQLNonNull, type GraphQLFieldConfigMap } from 'graphql'
import type { MercuriusLoaders } from 'mercurius'
import type { Document } from 'mongodb'
import type { ResourceModel } from '@svc/core/kit'
import type { Catalog } from '../schema/catalog.js'
import { isGraphqlName, typeName } from '../schema/names.js'
import type { RelationFields } from '../schema/records.js'
import type { GqlContext } from '../types.js'
import { costHint } from '../cost/hints.js'

/**
 * Relation fields of a record type (spec Relations rule 6): `belongsTo`/`hasOne` a target record
 * or null, `hasMany` a list. Their resolvers are the loaders below.
 */
export function relationFields (c: Catalog): RelationFields {
  return (model: ResourceModel) => {
    const out: GraphQLFieldConfigMap<unknown, unknown> = {}
    for (const r of Object.values(model.relations)) {
      if (!isGraphqlName(r.name)) continue
      const target = c.of(model, r.target).record
      out[r.name] =
        r.kind === 'hasMany'
          ? {
              type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(target))),
              description: `${r.target} records whose ${r.fk} is this record`,
              ...costHint({ kind: 'related', relation: r.kind })
            }
          : {
              type: target,
              description: `the ${r.target} record ${r.kind === 'belongsTo' ? `named by ${r.fk}` : `whose ${r.fk} is this record`}, or null`,
              ...costHint({ kind: 'related', relation: r.kind })
            }
    }
    return out
  }
}

/**
 * mercurius loaders: every parent of one level arrives in one batch and core's RelationLoader
 * answers it with one query per relation (tenant re-applied on the target, tombstones hidden,
 * the target's field ACL), the same code as REST's `__include`. No N+1.
 */
export function relationLoaders (c: Catalog): MercuriusLoaders<GqlContext> {
  const loaders: MercuriusLoaders<GqlContext> = {}
  for (const t of c.all()) {
    const relations = Object.values(t.model.relations).filter((r) => isGraphqlName(r.name))
    if (relations.length === 0) continue
    const byField: Record<string, (queries: Array<{ obj: unknown }>, ctx: GqlContext) => Promise<unknown[]>> = {}
    for (const r of relations) {
      byField[r.name] = async (queries, ctx) => {
        const parents = queries.map((q) => q.obj as Document)
        const related = await t.service.relations.populate(ctx.svc, parents, [r.name])
        return related.map((x) => x[r.name] ?? (r.kind === 'hasMany' ? [] : null))
      }
    }
    loaders[typeName(t.model)] = byField as MercuriusLoaders<GqlContext>[string]
  }
  return loaders
}
