import type { ToolSpec } from '../model/types.js'
import { boundResult } from '../tools/bound.js'
import type { McpTools } from '../tools/mcp-tools.js'
import { checkRender, isRenderTool, renderTools, type RenderPayload } from '../tools/render.js'

/** The agent's own bookkeeping schemas: their tools are never offered to the model. */
export const INTERNAL_PATHS = ['agentConversations']

const internalTool = new RegExp(`^[a-z]+_(${INTERNAL_PATHS.join('|')})(_|$)`)

export interface ToolRun {
  isError: boolean
  /** What the model reads (bounded). */
  text: string
  /** What the stream reports (the bounded value). */
  result: unknown
  render?: RenderPayload
}

/** The model's tools for one identity: the service's MCP tools plus the synthetic render tools. */
export class Toolbox {
  constructor (private readonly mcp: McpTools, private readonly maxResultChars: number) {}

  async specs (): Promise<ToolSpec[]> {
    const remote = (await this.mcp.list()).filter((t) => !internalTool.test(t.name) && !isRenderTool(t.name))
    return [...remote, ...renderTools]
  }

  /** Runs one call; every tool failure becomes an error result for the model, never a thrown turn. */
  async run (name: string, args: Record<string, unknown>, offered: ToolSpec[]): Promise<ToolRun> {
    if (isRenderTool(name)) {
      const checked = checkRender(name, args)
      if (!checked.ok) return this.#error('VALIDATION', checked.message)
      const summary = checked.payload.type === 'table' ? { rendered: 'table', rows: checked.payload.rows.length } : { rendered: 'chart' }
      return { isError: false, text: JSON.stringify(summary), result: summary, render: checked.payload }
    }
    if (!offered.some((t) => t.name === name)) return this.#error('NOT_FOUND', `no tool named ${name}`)
    const outcome = await this.mcp.call(name, args)
    const bounded = boundResult(outcome.result, this.maxResultChars)
    return { isError: outcome.isError, text: bounded.text, result: bounded.value }
  }

  async close (): Promise<void> {
    await this.mcp.close()
  }

  #error (code: string, message: string): ToolRun {
    const result = { error: { code, message } }
    return { isError: true, text: JSON.stringify(result), result }
  }
}
