import type { Tool } from '@modelcontextprotocol/sdk/types.js'
import type { RequestContext } from '@svc/core'
import type { ResourceModel } from '@svc/core/kit'

/** Options of the @svc/mcp plugin. */
export interface McpOptions {
  /** Where the Streamable HTTP endpoint is mounted; default `/mcp`. */
  path?: string
  /**
   * Largest JSON answer (in characters) a list-like tool returns (lists, search, relation
   * lists, history, aggregations). Past it, trailing results are dropped and `truncated` is set;
   * default 100000 (about 25k tokens).
   */
  maxResultChars?: number
  /** Hide the messages of unexpected (500) tool errors; default `NODE_ENV === 'production'`, like core. */
  production?: boolean
  /**
   * At shutdown (`app.close()`), how long (ms) tool calls in flight may finish before they are
   * stopped: their reads aborted, each answered with a JSON-RPC error. Default 3000.
   */
  shutdownGraceMs?: number
  /**
   * `full` (default): the spec's tools, one per schema and action (`list_deals`…). `compact`: one
   * tool per action taking the resource as an argument (`list({ resource: 'deals', … })`), plus
   * `describe_tool` for one resource's exact argument schema, for clients that load few tools.
   */
  tools?: 'full' | 'compact'
  /** Offer only the tools that change nothing (lists, gets, search, history, relations, aggregations, file fetches). */
  readOnly?: boolean
  /** Schemas (`path`, or `version/path` outside v1) offered no MCP tool; REST and GraphQL still serve them. */
  exclude?: string[]
}

export type JsonSchema = Record<string, unknown>
/** A tool's input or output schema: MCP wants an object at the root. */
export type ObjectSchema = JsonSchema & { type: 'object' }
export type ToolArgs = Record<string, unknown>

/**
 * What a tool hands back: `structured` becomes `structuredContent` (it matches the tool's
 * `outputSchema`), `summary` the first line of the text rendering; `list` names the array the
 * size bound may cut (list-like answers).
 */
export interface ToolOutput {
  structured: Record<string, unknown>
  summary: string
  list?: 'results'
}

/**
 * Who may see a tool in `tools/list`: `read` tools are offered to api clients (X-Client-Id) on
 * schemas with an `acl.scope` for their role; `user` tools need a signed-in user (writes, history,
 * aggregations). `roles` restricts a tool further (unsafe aggregations: the `acl.list` roles).
 */
export type ToolAudience = 'read' | 'user'

/**
 * What a per-schema tool does, for compact mode: `list_deals` is `{ name: 'list' }`, `get_deals_company`
 * `{ name: 'get_related', key: { arg: 'relation', value: 'company' } }`.
 */
export interface ToolAction {
  name: string
  key?: { arg: 'relation' | 'aggregation' | 'field'; value: string }
}

/** One generated tool: its MCP definition, built once at start-up, and how to run it. */
export interface McpTool {
  definition: Tool
  /** Set on per-schema tools: the action compact mode offers them under. */
  action?: ToolAction
  /** The schema the tool belongs to (`_describe` lists it there); none for `list_resources`. */
  model?: ResourceModel
  audience: ToolAudience
  roles?: readonly string[]
  /** Screens the raw arguments before schema validation (field ACL and computed names of a record, like REST's preValidation). */
  screen?: (ctx: RequestContext, args: ToolArgs) => void
  run: (ctx: RequestContext, args: ToolArgs) => Promise<ToolOutput>
}
