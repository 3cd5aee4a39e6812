import type { Tool } from '@modelcontextprotocol/sdk/types.js'
import { ValidationError, type RequestContext } from '@svc/core'
import type { JsonSchema, McpTool, ToolArgs } from '../types.js'
import { READ_ONLY, args, toolPath } from './shared.js'

/** Compact mode's actions, in the order `tools/list` shows them, with what each does. */
export const ACTIONS: Record<string, string> = {
  list: 'List the records of a resource, newest first unless sorted, optionally filtered, one page per call.',
  get: 'Read one record of a resource by id, optionally with related records embedded.',
  search: 'Full-text search of a resource over its searchable fields, best match first.',
  create: 'Create one record of a resource and return it as stored.',
  update:
    'Change fields of one record of a resource (null clears an optional field); a state field moves only along its transition table.',
  delete: 'Delete one record of a resource (a restorable tombstone where soft delete is on).',
  restore: 'Bring a deleted record of a resource back.',
  history: 'The audit rows of one record of a resource, newest first.',
  list_related: 'List the records a hasMany relation of one record holds.',
  get_related: 'Read the record a belongsTo or hasOne relation of one record points at (or null).',
  aggregate: 'Run a declared aggregation of a resource with its parameters.',
  upload_file: 'Upload a file (base64) into a file field of one record.',
  fetch_file: "Read a file field's metadata and download URL.",
  delete_file: 'Remove the file of a file field of one record.'
}

export const DESCRIBE_TOOL = 'describe_tool'

const unique = (values: string[]): string[] => [...new Set(values)]
const resourceOf = (tool: McpTool): string => toolPath(tool.model!)

/** A per-schema argument named like a compact selector (an aggregation param `resource`) would be shadowed. */
export function assertCompactable (tool: McpTool): void {
  const own = Object.keys(tool.definition.inputSchema.properties ?? {})
  const clash = own.find((n) => n === 'resource' || n === tool.action?.key?.arg)
  if (clash !== undefined) {
    throw new Error(
      `@svc/mcp: tool ${tool.definition.name} has an argument '${clash}', which compact mode uses to pick the tool: rename it or use tools: 'full'`
    )
  }
}

/** The per-schema tool a compact call means, and its own arguments; a VALIDATION error names what exists. */
export function resolveCompact (tools: McpTool[], action: string, a: ToolArgs): { tool: McpTool; args: ToolArgs } {
  const { resource, ...rest } = a
  const candidates = tools.filter((t) => resourceOf(t) === resource)
  if (candidates.length === 0) {
    throw new ValidationError(`${action}: resource must be one of ${unique(tools.map(resourceOf)).join(', ')}`, {
      field: 'resource'
    })
  }
  const key = candidates[0].action!.key
  if (key === undefined) return { tool: candidates[0], args: rest }
  const tool = candidates.find((t) => t.action!.key!.value === rest[key.arg])
  if (tool === undefined) {
    const names = candidates.map((t) => t.action!.key!.value).join(', ')
    throw new ValidationError(`${action}: ${key.arg} must be one of ${names} for ${String(resource)}`, {
      field: key.arg
    })
  }
  delete rest[key.arg]
  return { tool, args: rest }
}

/** One argument across resources: kept when identical, else its type and a pointer to `describe_tool`. */
function mergeArgument (action: string, schemas: JsonSchema[]): JsonSchema {
  const first = JSON.stringify(schemas[0])
  if (schemas.every((s) => JSON.stringify(s) === first)) return schemas[0]
  const description = `depends on the resource: ${DESCRIBE_TOOL}({ tool: '${action}', resource }) gives its exact schema`
  const type = JSON.stringify(schemas[0].type)
  return schemas.every((s) => JSON.stringify(s.type) === type) && type !== undefined
    ? { type: schemas[0].type, description }
    : { description }
}

/** The compact tool of one action over the per-schema tools the caller sees. */
export function compactDefinition (action: string, tools: McpTool[]): Tool {
  const resources = unique(tools.map(resourceOf))
  const key = tools[0].action!.key
  const properties: Record<string, JsonSchema> = {
    resource: {
      type: 'string',
      enum: resources,
      description: 'the resource (collection) to work on; list_resources describes each'
    }
  }
  if (key !== undefined) {
    const values = unique(tools.map((t) => t.action!.key!.value))
    properties[key.arg] = {
      type: 'string',
      enum: values,
      description: `the ${key.arg} of the resource (list_resources names them)`
    }
  }
  const merged = new Map<string, JsonSchema[]>()
  for (const t of tools) {
    for (const [name, schema] of Object.entries(t.definition.inputSchema.properties ?? {})) {
      merged.set(name, [...(merged.get(name) ?? []), schema as JsonSchema])
    }
  }
  for (const [name, schemas] of merged) properties[name] = mergeArgument(action, schemas)
  const everywhere = [...merged.keys()].filter((n) =>
    tools.every((t) => t.definition.inputSchema.required?.includes(n) === true)
  )
  const readOnly = tools.every((t) => t.definition.annotations?.readOnlyHint === true)
  const title = `${action.replace('_', ' ')} (any resource)`
  return {
    name: action,
    title,
    description: `${ACTIONS[action]} Resources: ${resources.join(', ')}. The other arguments are the resource's own (${DESCRIBE_TOOL} gives them exactly).`,
    inputSchema: {
      type: 'object',
      properties,
      required: ['resource', ...(key !== undefined ? [key.arg] : []), ...everywhere],
      additionalProperties: false
    },
    annotations: readOnly
      ? { title, ...READ_ONLY }
      : {
          title,
          readOnlyHint: false,
          destructiveHint: tools.some((t) => t.definition.annotations?.destructiveHint === true),
          openWorldHint: false
        }
  }
}

/**
 * `describe_tool`: the per-schema input and output schemas compact mode does not list, for one
 * action on one resource (`resource` and the key argument pinned with `const`).
 */
export function describeTool (resolve: (ctx: RequestContext, action: string, a: ToolArgs) => McpTool): McpTool {
  return {
    audience: 'read',
    definition: {
      name: DESCRIBE_TOOL,
      title: 'Describe one action on one resource',
      description:
        'The exact arguments (inputSchema) and answer (outputSchema) of one tool on one resource, e.g. { "tool": "create", "resource": "deals" }; relation, aggregation or field pick the one the tool works on.',
      inputSchema: args(
        {
          tool: { type: 'string', enum: Object.keys(ACTIONS) },
          resource: { type: 'string' },
          relation: { type: 'string' },
          aggregation: { type: 'string' },
          field: { type: 'string' }
        },
        ['tool', 'resource']
      ),
      outputSchema: {
        type: 'object',
        properties: {
          tool: { type: 'string' },
          resource: { type: 'string' },
          description: { type: 'string' },
          inputSchema: { type: 'object' },
          outputSchema: { type: 'object' }
        },
        required: ['tool', 'resource', 'description', 'inputSchema']
      },
      annotations: { title: 'Describe a tool', ...READ_ONLY }
    },
    run: async (ctx, a) => {
      const { tool: action, ...selector } = a as { tool: string; resource: string } & ToolArgs
      const tool = resolve(ctx, action, selector)
      const key = tool.action!.key
      const input = tool.definition.inputSchema
      const pinned: Record<string, JsonSchema> = { resource: { const: selector.resource } }
      if (key !== undefined) pinned[key.arg] = { const: key.value }
      const inputSchema = {
        ...input,
        properties: { ...pinned, ...input.properties },
        required: [...Object.keys(pinned), ...(input.required ?? [])]
      }
      const structured = {
        tool: action,
        resource: selector.resource,
        description: tool.definition.description ?? '',
        inputSchema,
        ...(tool.definition.outputSchema !== undefined ? { outputSchema: tool.definition.outputSchema } : {})
      }
      return {
        structured,
        summary: `${action} on ${selector.resource}${key !== undefined ? ` (${key.arg} ${key.value})` : ''}`
      }
    }
  }
}
