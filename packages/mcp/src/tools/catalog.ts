import { Ajv, type ValidateFunction } from 'ajv'
import addFormatsModule from 'ajv-formats'
import type { FastifyBaseLogger } from 'fastify'
import { ErrorCode, McpError, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js'
import { ValidationError, type Identity, type RequestContext, type SvcContext } from '@svc/core'
import { type ResourceModel } from '@svc/core/kit'
import { failure, success } from '../results.js'
import type { McpOptions, McpTool, ToolArgs } from '../types.js'
import {
  ACTIONS,
  DESCRIBE_TOOL,
  assertCompactable,
  compactDefinition,
  describeTool,
  resolveCompact
} from './compact-tools.js'
import { aggregationTools } from './aggregation-tools.js'
import { historyTool, restoreTool } from './feature-tools.js'
import { fileTools } from './file-tools.js'
import { getTool, listTool, searchTool } from './read-tools.js'
import { relationTools } from './relation-tools.js'
import { resourcesTool } from './resources-tool.js'
import { buildContext, toolPath } from './shared.js'
import { createTool, deleteTool, updateTool } from './write-tools.js'

// ajv-formats is CJS; under NodeNext its default import is the module namespace.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  ajv: Ajv
) => Ajv
// The MCP naming rule (letters, digits, _ - .; at most 128), so every client accepts every name.
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/
const MAX_CACHED_LISTS = 256

export interface CallOptions {
  maxResultChars: number
  production: boolean
  log: FastifyBaseLogger
  /** What the answers of the calls of one POST may still hold, in characters (shared by its calls). */
  batch?: { remaining: number; limit: number }
}

/** Every tool of one schema, in the order `tools/list` shows them; absent features give no tool. */
function schemaTools (b: ReturnType<typeof buildContext>, model: ResourceModel): McpTool[] {
  const optional = [searchTool(b, model), restoreTool(b, model), historyTool(b, model)]
  return [
    listTool(b, model),
    getTool(b, model),
    ...optional.filter((t): t is McpTool => t !== undefined),
    createTool(b, model),
    updateTool(b, model),
    deleteTool(b, model),
    ...relationTools(b, model),
    ...aggregationTools(b, model),
    ...fileTools(b, model)
  ]
}

export type CatalogOptions = Pick<McpOptions, 'tools' | 'readOnly' | 'exclude'>

/** The schemas `exclude` names (`path`, or `version/path`): an unknown name stops start-up. */
function excludedModels (models: ResourceModel[], names: string[]): Set<ResourceModel> {
  const out = new Set<ResourceModel>()
  for (const name of names) {
    const found = models.filter((m) => `${m.version}/${m.path}` === name || (m.path === name && toolPath(m) === m.path))
    if (found.length === 0) {
      throw new Error(
        `@svc/mcp: option \`exclude\` names '${name}', which is no loaded schema (known: ${models.map(toolPath).join(', ')})`
      )
    }
    for (const m of found) out.add(m)
  }
  return out
}

/**
 * The tools generated from the finished registry, built once at start-up. Per request only the
 * caller's view (`list`) is picked (cached per role set) and one tool is run (`call`). In compact
 * mode the per-schema tools are offered grouped by action (`list({ resource })`).
 */
export class ToolCatalog {
  readonly #tools = new Map<string, McpTool>()
  readonly #validators = new Map<string, ValidateFunction>()
  readonly #lists = new Map<string, Tool[]>()
  readonly #ajv = addFormats(new Ajv({ allErrors: true, strict: false, coerceTypes: false, useDefaults: false }))
  /** Compact mode: the per-schema tools of each action, and `describe_tool`; null in full mode. */
  readonly #actions: Map<string, McpTool[]> | null = null
  readonly #describe: McpTool | null = null
  readonly #resources: McpTool

  constructor (svc: SvcContext, opts: CatalogOptions = {}) {
    const b = buildContext(svc)
    const models = svc.registry.all()
    const excluded = excludedModels(models, opts.exclude ?? [])
    for (const model of models) {
      if (excluded.has(model)) continue
      for (const tool of schemaTools(b, model)) {
        if (opts.readOnly === true && tool.definition.annotations?.readOnlyHint !== true) continue
        this.#add(tool)
      }
    }
    this.#resources = resourcesTool(b, (model, identity) => this.namesFor(model, identity))
    this.#add(this.#resources)
    if (opts.tools === 'compact') {
      this.#actions = new Map()
      for (const action of Object.keys(ACTIONS)) {
        const tools = [...this.#tools.values()].filter((t) => t.action?.name === action)
        tools.forEach(assertCompactable)
        if (tools.length > 0) this.#actions.set(action, tools)
      }
      // Resolved at call time against the tools the caller sees.
      this.#describe = describeTool((ctx, action, a) => this.#compactTarget(action, a, ctx.identity!).tool)
    }
  }

  #add (tool: McpTool): void {
    const { name } = tool.definition
    if (!TOOL_NAME.test(name)) {
      throw new Error(
        `@svc/mcp: tool name '${name}' (from ${tool.model?.source ?? 'list_resources'}) is not a valid MCP tool name: use letters, digits, _ - . (at most 128)`
      )
    }
    const taken = this.#tools.get(name)
    if (taken !== undefined) {
      throw new Error(
        `@svc/mcp: two tools are named '${name}' (from ${taken.model?.source ?? 'list_resources'} and ${tool.model?.source ?? 'list_resources'}): rename a path, relation, aggregation or file field`
      )
    }
    this.#tools.set(name, tool)
  }

  /** Read tools reach api clients on schemas scoped for their role; restricted tools need one of their roles. */
  visible (tool: McpTool, identity: Identity): boolean {
    if (identity.kind === 'client') {
      if (tool.audience !== 'read') return false
      return tool.model === undefined || identity.roles.some((r) => Object.hasOwn(tool.model!.acl.scope, r))
    }
    return tool.roles === undefined || tool.roles.some((r) => identity.roles.includes(r))
  }

  /** A schema's tool names (compact mode: its actions): the caller's view, or every one (the `_describe` manifest) without an identity. */
  namesFor (model: ResourceModel, identity?: Identity): string[] {
    const out: string[] = []
    for (const tool of this.#tools.values()) {
      if (tool.model === model && (identity === undefined || this.visible(tool, identity))) {
        out.push(this.#actions !== null ? tool.action!.name : tool.definition.name)
      }
    }
    return [...new Set(out)]
  }

  /** `tools/list` for one caller. */
  list (identity: Identity): Tool[] {
    const key = `${identity.kind}:${[...identity.roles].sort().join(',')}`
    let tools = this.#lists.get(key)
    if (tools === undefined) {
      tools =
        this.#actions === null
          ? [...this.#tools.values()].filter((t) => this.visible(t, identity)).map((t) => t.definition)
          : this.#compactList(identity)
      if (this.#lists.size >= MAX_CACHED_LISTS) this.#lists.clear()
      this.#lists.set(key, tools)
    }
    return tools
  }

  #compactList (identity: Identity): Tool[] {
    const out: Tool[] = []
    for (const [action, tools] of this.#actions!) {
      const mine = tools.filter((t) => this.visible(t, identity))
      if (mine.length > 0) out.push(compactDefinition(action, mine))
    }
    return [...out, this.#resources.definition, this.#describe!.definition]
  }

  /** The per-schema tool behind a compact call, among those the caller sees. */
  #compactTarget (action: string, a: ToolArgs, identity: Identity): { tool: McpTool; args: ToolArgs } {
    const mine = (this.#actions!.get(action) ?? []).filter((t) => this.visible(t, identity))
    if (mine.length === 0) throw new ValidationError(`no resource offers '${action}' to this caller`, { field: 'tool' })
    return resolveCompact(mine, action, a)
  }

  /** What a name offered in `tools/list` stands for; undefined for a name not offered. */
  #entry (name: string): McpTool | McpTool[] | undefined {
    if (this.#actions === null) return this.#tools.get(name)
    if (name === this.#resources.definition.name) return this.#resources
    if (name === DESCRIBE_TOOL) return this.#describe!
    return this.#actions.has(name) ? this.#actions.get(name) : undefined
  }

  #validator (tool: McpTool): ValidateFunction {
    let v = this.#validators.get(tool.definition.name)
    if (v === undefined) {
      v = this.#ajv.compile(tool.definition.inputSchema)
      this.#validators.set(tool.definition.name, v)
    }
    return v
  }

  /**
   * `tools/call`: an unknown name is a protocol error (the client asked for something that does
   * not exist); everything else, bad arguments included, is a tool result the model can read.
   */
  async call (ctx: RequestContext, name: string, args: ToolArgs, opts: CallOptions): Promise<CallToolResult> {
    const entry = this.#entry(name)
    if (entry === undefined) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`)
    try {
      const batch = opts.batch
      if (batch !== undefined && batch.remaining <= 0) {
        throw new ValidationError(
          `the answers of this POST already hold ${batch.limit} characters: send the remaining calls in another POST`,
          { limit: batch.limit }
        )
      }
      const { tool, args: own } = Array.isArray(entry)
        ? this.#compactTarget(name, args, ctx.identity!)
        : { tool: entry, args }
      tool.screen?.(ctx, own)
      const validate = this.#validator(tool)
      if (!validate(own)) {
        throw Object.assign(new Error('invalid arguments'), {
          validation: validate.errors,
          validationContext: 'arguments'
        })
      }
      const result = success(await tool.run(ctx, own), opts.maxResultChars)
      // The answer carries its JSON twice (structuredContent and the text block).
      if (batch !== undefined) batch.remaining -= 2 * (result.content[0] as { text: string }).text.length
      return result
    } catch (err) {
      const { result, status } = failure(err, opts.production)
      // A call stopped by its client or a shutdown has no one to tell.
      if (status >= 500 && ctx.signal?.aborted !== true) opts.log.error({ err, tool: name }, 'mcp tool failed')
      return result
    }
  }
}
