import type { ToolSpec } from '../model/types.js'
import type { McpToolSpec } from './mcp-tools.js'

/** The agent's own schemas: conversations and the learning layer. No model tool reaches them. */
export const AGENT_PATHS: readonly string[] = [
  'agentConversations',
  'agentMemory',
  'agentPersona',
  'skills',
  'customerProfiles'
]

const AGENT_TOOL = new RegExp(`^[a-z]+_(v[^_]+_)?(${AGENT_PATHS.join('|')})(_|$)`)

/** What `list_resources` says about one collection (the tools on it, its relations' targets). */
export interface ResourceInfo {
  path: string
  tools: string[]
  relations?: Record<string, { target?: unknown }>
}

export interface ToolPolicy {
  mode: 'service' | 'per-user'
  /** Service mode: the write tools the operator allows by name; read tools are always allowed. */
  serviceWriteTools: ReadonlySet<string>
}

/** True for a tool on one of the agent's schemas, or on a relation leading into one. */
function agentTool (name: string, resource: ResourceInfo | undefined): boolean {
  if (AGENT_TOOL.test(name)) return true
  if (resource == null) return false
  if (AGENT_PATHS.includes(resource.path)) return true
  return Object.entries(resource.relations ?? {}).some(
    ([rel, r]) => AGENT_PATHS.includes(String(r.target)) && /^(list|get)_/.test(name) && name.endsWith(`_${rel}`)
  )
}

/**
 * The service tools the model may call: an allowlist, not a filter. A tool counts only when
 * `list_resources` names it under a collection (or it is `list_resources` itself), never on the
 * agent's schemas; in service mode, where every chat user shares one identity, only read tools
 * and the writes the operator named; in per-user mode, what the service offers that person.
 */
export function allowedServiceTools (tools: McpToolSpec[], resources: ResourceInfo[], policy: ToolPolicy): ToolSpec[] {
  const owner = new Map<string, ResourceInfo>()
  for (const r of resources) for (const name of r.tools) owner.set(name, r)
  return tools
    .filter((t) => t.name === 'list_resources' || (owner.has(t.name) && !agentTool(t.name, owner.get(t.name))))
    .filter((t) => policy.mode === 'per-user' || t.readOnly || policy.serviceWriteTools.has(t.name))
    .map((t) => ({ name: t.name, description: t.description, parameters: t.parameters }))
}

/** `list_resources` as the model reads it: only the collections and tools it may use. */
export function visibleResources (resources: ResourceInfo[], allowed: ReadonlySet<string>): ResourceInfo[] {
  return resources
    .filter((r) => !AGENT_PATHS.includes(r.path))
    .map((r) => ({ ...r, tools: r.tools.filter((t) => allowed.has(t)) }))
    .filter((r) => r.tools.length > 0)
}

/** Refuses, at start, an allowlist naming a tool on the agent's own schemas. */
export function checkServiceWriteTools (names: Iterable<string>): void {
  for (const name of names) {
    if (AGENT_TOOL.test(name)) {
      throw new Error(`@svc/agent: '${name}' works on the agent's own records and cannot be offered to the model`)
    }
  }
}
