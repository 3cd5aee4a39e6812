import type { RelationModel, ResourceModel } from '@svc/core/kit'
import { filterExample, filterSchema, sortSchema } from '../schema/filter.js'
import { listOutput, recordOutput } from '../schema/records.js'
import type { McpTool } from '../types.js'
import { listQuery } from './read-tools.js'
import { READ_ONLY, args, cursorArgs, idArg, pageArgs, serviceOf, toolPath, type BuildContext } from './shared.js'

// Spec, Relations rule 6: get_<path>_<rel>(id) for belongsTo/hasOne, list_<path>_<rel>(id, filter?, sort?) for hasMany.

const RULES = "Related records are always the caller's own and never deleted ones."

function targetOf (b: BuildContext, model: ResourceModel, r: RelationModel): ResourceModel {
  return b.svc.services.get(r.target, model.version).model
}

/** `list_<path>_<rel>`: the hasMany records of one record, as a filtered, sorted, paged list. */
function listRelatedTool (b: BuildContext, model: ResourceModel, r: RelationModel): McpTool {
  const service = serviceOf(b, model)
  const target = targetOf(b, model, r)
  return {
    model,
    audience: 'read',
    action: { name: 'list_related', key: { arg: 'relation', value: r.name } },
    definition: {
      name: `list_${toolPath(model)}_${r.name}`,
      title: `List the ${r.name} of a ${model.path} record`,
      description: `List the ${target.path} records of one ${model.path} record (relation '${r.name}': ${target.path}.${r.fk} holds the ${model.path} id), newest first unless sorted, optionally filtered on ${target.path} fields, e.g. ${JSON.stringify(filterExample(target))}. ${RULES} One page per call (nextCursor continues; null on the last).`,
      inputSchema: args(
        { id: idArg(model), filter: filterSchema(target), sort: sortSchema(target), ...pageArgs(b), ...cursorArgs() },
        ['id']
      ),
      outputSchema: listOutput(recordOutput(target, b.softDelete(target)), `${target.path} records`, true),
      annotations: { title: `List ${model.path} ${r.name}`, ...READ_ONLY }
    },
    run: async (ctx, a) => {
      const page = await service.listRelated(
        ctx,
        a.id as string,
        r.name,
        listQuery(
          { filter: a.filter, sort: a.sort, page: a.page, perPage: a.perPage, cursor: a.cursor, count: a.count },
          b.perPage
        )
      )
      return {
        structured: { ...page },
        summary: `${page.results.length} of ${page.totalResults ?? 'uncounted'} ${r.name} of ${model.path} ${String(a.id)} (page ${page.page}${page.totalPages === null ? '' : ` of ${page.totalPages}`})`,
        list: 'results'
      }
    }
  }
}

/** `get_<path>_<rel>`: the one related record of a belongsTo or hasOne relation, or null. */
function getRelatedTool (b: BuildContext, model: ResourceModel, r: RelationModel): McpTool {
  const service = serviceOf(b, model)
  const target = targetOf(b, model, r)
  const link =
    r.kind === 'belongsTo' ? `${model.path}.${r.fk} holds its id` : `${target.path}.${r.fk} holds the ${model.path} id`
  return {
    model,
    audience: 'read',
    action: { name: 'get_related', key: { arg: 'relation', value: r.name } },
    definition: {
      name: `get_${toolPath(model)}_${r.name}`,
      title: `Get the ${r.name} of a ${model.path} record`,
      description: `Read the ${target.path} record related to one ${model.path} record (relation '${r.name}': ${link}). The answer's record is null when there is none. ${RULES}`,
      inputSchema: args({ id: idArg(model) }, ['id']),
      outputSchema: {
        type: 'object',
        properties: {
          record: {
            anyOf: [recordOutput(target, b.softDelete(target)), { type: 'null' }],
            description: `the related ${target.path} record, or null`
          }
        },
        required: ['record']
      },
      annotations: { title: `Get ${model.path} ${r.name}`, ...READ_ONLY }
    },
    run: async (ctx, a) => {
      const parent = await service.get(ctx, a.id as string, { include: [r.name] })
      const record = (parent[r.name] ?? null) as Record<string, unknown> | null
      return {
        structured: { record },
        summary:
          record === null
            ? `${model.path} ${String(a.id)} has no ${r.name}`
            : `${r.name} of ${model.path} ${String(a.id)}: ${target.path} ${String(record._id)}`
      }
    }
  }
}

export function relationTools (b: BuildContext, model: ResourceModel): McpTool[] {
  return Object.values(model.relations).map((r) =>
    r.kind === 'hasMany' ? listRelatedTool(b, model, r) : getRelatedTool(b, model, r)
  )
}
