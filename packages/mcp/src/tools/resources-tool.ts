import type { Identity, RequestContext } from '@svc/core'
import type { ResourceModel } from '@svc/core/kit'
import { fieldNote } from '../schema/records.js'
import type { JsonSchema, McpTool } from '../types.js'
import { READ_ONLY, args, serviceOf, type BuildContext } from './shared.js'

const RESOURCE: JsonSchema = {
  type: 'object',
  properties: {
    path: { type: 'string', description: 'the resource name used in tool names' },
    version: { type: 'string' },
    fields: {
      type: 'array',
      items: {
        type: 'object',
        properties: { name: { type: 'string' }, type: { type: 'string' }, notes: { type: 'string' } },
        required: ['name', 'type']
      },
      description: 'the fields you can read'
    },
    relations: { type: 'object', additionalProperties: { type: 'object' }, description: 'name → { kind, target, fk }' },
    stateMachines: {
      type: 'object',
      additionalProperties: { type: 'object' },
      description: 'state field → { initial, states, transitions }'
    },
    softDelete: { type: 'boolean' },
    audit: { type: 'boolean' },
    tools: { type: 'array', items: { type: 'string' }, description: 'the tools you can use on it' }
  },
  required: ['path', 'version', 'fields', 'tools']
}

function describe (
  b: BuildContext,
  model: ResourceModel,
  ctx: RequestContext,
  tools: string[]
): Record<string, unknown> {
  const readable = serviceOf(b, model).readableFields(ctx)
  return {
    path: model.path,
    version: model.version,
    fields: model.fields
      .filter((f) => readable === null || readable.has(f.name))
      .map((f) => {
        const notes = fieldNote(model, f)
        return { name: f.name, type: f.typeName, ...(notes !== '' ? { notes } : {}) }
      }),
    relations: Object.fromEntries(
      Object.values(model.relations).map((r) => [r.name, { kind: r.kind, target: r.target, fk: r.fk }])
    ),
    stateMachines: Object.fromEntries(
      Object.entries(model.stateMachines).map(([k, sm]) => [
        k,
        { initial: sm.initial, states: sm.states, transitions: sm.transitions }
      ])
    ),
    softDelete: b.softDelete(model),
    audit: b.audit(model),
    tools
  }
}

/**
 * The synthetic `list_resources`: the collections the caller can reach, with their readable
 * fields and the tools that work on them, so a model can orient itself in one call.
 */
export function resourcesTool (
  b: BuildContext,
  toolsFor: (model: ResourceModel, identity: Identity) => string[]
): McpTool {
  return {
    audience: 'read',
    definition: {
      name: 'list_resources',
      title: 'List the data collections',
      description:
        'List the collections (resources) of this data service you can use: each with its readable fields (type and rules), relations, state machines and the tools that work on it. Start here to find which tool to call.',
      inputSchema: args({}),
      outputSchema: {
        type: 'object',
        properties: { resources: { type: 'array', items: RESOURCE } },
        required: ['resources']
      },
      annotations: { title: 'List resources', ...READ_ONLY }
    },
    run: async (ctx) => {
      const resources = []
      for (const model of b.svc.registry.all()) {
        const tools = toolsFor(model, ctx.identity!)
        if (tools.length > 0) resources.push(describe(b, model, ctx, tools))
      }
      return {
        structured: { resources },
        summary: `${resources.length} resources: ${resources.map((r) => r.path).join(', ')}`
      }
    }
  }
}
