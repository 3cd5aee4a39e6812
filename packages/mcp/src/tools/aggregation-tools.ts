import { MAX_AGGREGATION_STRING_PARAM, type ResourceModel } from '@svc/core/kit'
import type { JsonSchema, McpTool, ObjectSchema } from '../types.js'
import { READ_ONLY, args, serviceOf, toolPath, type BuildContext } from './shared.js'

type AggregationModel = ResourceModel['aggregations'][number]
type Param = AggregationModel['params'][number]

function paramSchema (p: Param): JsonSchema {
  switch (p.kind) {
    case 'number':
      return { type: 'number', description: `${p.name} (Number)` }
    case 'boolean':
      return { type: 'boolean', description: `${p.name} (Boolean)` }
    case 'date':
      return { type: 'string', description: `${p.name}: an ISO 8601 date or date-time` }
    default:
      return { type: 'string', maxLength: MAX_AGGREGATION_STRING_PARAM, description: `${p.name} (String)` }
  }
}

const OUTPUT: ObjectSchema = {
  type: 'object',
  properties: {
    results: {
      type: 'array',
      items: { type: 'object', additionalProperties: true },
      description: 'the rows the aggregation produced'
    },
    truncated: { type: 'boolean', description: 'true when rows were cut to fit the answer size: narrow the params' }
  },
  required: ['results', 'truncated']
}

/**
 * `aggregate_<path>_<name>`, one per declared aggregation: its params typed as the tool's
 * arguments. `unsafe` ones are offered (and allowed by core) only to the `acl.list` roles.
 */
function aggregationTool (b: BuildContext, model: ResourceModel, a: AggregationModel): McpTool {
  const service = serviceOf(b, model)
  const params = Object.fromEntries(a.params.map((p) => [p.name, paramSchema(p)]))
  const required = a.params.filter((p) => p.required).map((p) => p.name)
  const restricted = a.unsafe ? ` Restricted to roles ${model.acl.list.join(', ') || '(none)'}.` : ''
  return {
    model,
    audience: 'user',
    action: { name: 'aggregate', key: { arg: 'aggregation', value: a.name } },
    ...(a.unsafe ? { roles: model.acl.list } : {}),
    definition: {
      name: `aggregate_${toolPath(model)}_${a.name}`,
      title: a.description ?? `${a.name} of ${model.path}`,
      description: `${a.description ?? `The '${a.name}' aggregation of ${model.path}`}. Computed over the caller's own ${model.path} records only (deleted ones excluded)${a.params.length > 0 ? `, narrowed by the arguments given (${a.params.map((p) => `${p.name}${p.required ? ', required' : ''}`).join('; ')})` : ''}.${restricted} Needs a signed-in user.${a.ttlSeconds !== undefined ? ` Answers may be up to ${a.ttlSeconds} s old (cached).` : ''}`,
      inputSchema: args(params, required),
      outputSchema: OUTPUT,
      annotations: { title: `${model.path}: ${a.name}`, ...READ_ONLY }
    },
    run: async (ctx, args) => {
      const { results } = await service.aggregations.run(ctx, a.name, args)
      return {
        structured: { results },
        summary: `${results.length} rows from ${a.name} of ${model.path}`,
        list: 'results'
      }
    }
  }
}

export function aggregationTools (b: BuildContext, model: ResourceModel): McpTool[] {
  return model.aggregations.map((a) => aggregationTool(b, model, a))
}
