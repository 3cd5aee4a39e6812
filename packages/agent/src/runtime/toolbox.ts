import { ServiceUnavailableError } from '../errors.js'
import type { ToolSpec } from '../model/types.js'
import { boundResult } from '../tools/bound.js'
import { isLearningTool, learningToolSpecs, type LearningTools } from '../tools/learning-tools.js'
import type { McpTools, ToolOutcome } from '../tools/mcp-tools.js'
import { allowedServiceTools, visibleResources, type ResourceInfo, type ToolPolicy } from '../tools/policy.js'
import { checkRender, isRenderTool, renderTools, type RenderPayload } from '../tools/render.js'

export interface ToolRun {
  isError: boolean
  /** What the model reads (bounded). */
  text: string
  /** What the stream reports (the bounded value). */
  result: unknown
  render?: RenderPayload
}

/** The tools of one turn, as `runTurn` uses them. */
export interface TurnToolbox {
  specs: () => Promise<ToolSpec[]>
  run: (name: string, args: Record<string, unknown>, offered: ToolSpec[]) => Promise<ToolRun>
}

interface Allowed {
  specs: ToolSpec[]
  names: Set<string>
}

/**
 * The service tools of one identity (its MCP client, kept connected) narrowed to the model's
 * allowlist for the mode, worked out once from `tools/list` and `list_resources`.
 */
export class Toolbox {
  #allowed: Promise<Allowed> | null = null

  constructor (
    private readonly mcp: McpTools,
    private readonly maxResultChars: number,
    private readonly policy: ToolPolicy
  ) {}

  async #load (): Promise<Allowed> {
    const listed = await this.mcp.list()
    const described = await this.mcp.call('list_resources', {})
    const resources = (described.result as { resources?: ResourceInfo[] } | null)?.resources
    if (described.isError || !Array.isArray(resources)) {
      throw new ServiceUnavailableError('the service did not describe its collections (list_resources failed)')
    }
    const specs = allowedServiceTools(listed, resources, this.policy)
    return { specs, names: new Set(specs.map((s) => s.name)) }
  }

  async #tools (): Promise<Allowed> {
    if (this.#allowed == null) {
      this.#allowed = this.#load()
      this.#allowed.catch(() => {
        this.#allowed = null
      })
    }
    return await this.#allowed
  }

  /** The service tools the model may call (checks the service answers for this identity). */
  async serviceTools (): Promise<ToolSpec[]> {
    return (await this.#tools()).specs
  }

  /** This identity's tools for one turn: the allowed service tools, the render tools and, when given, the learning tools. */
  forTurn (learning?: LearningTools): TurnToolbox {
    return {
      specs: async () => [
        ...(await this.serviceTools()),
        ...renderTools,
        ...(learning != null ? learningToolSpecs : [])
      ],
      run: async (name, args, offered) => await this.#run(name, args, offered, learning)
    }
  }

  /** Runs one call; every tool failure becomes an error result for the model, never a thrown turn. */
  async #run (
    name: string,
    args: Record<string, unknown>,
    offered: ToolSpec[],
    learning?: LearningTools
  ): Promise<ToolRun> {
    if (!offered.some((t) => t.name === name)) {
      return this.#bounded({
        isError: true,
        result: { error: { code: 'NOT_FOUND', message: `no tool named ${name}` } }
      })
    }
    if (isRenderTool(name)) {
      const checked = checkRender(name, args)
      if (!checked.ok) {
        return this.#bounded({ isError: true, result: { error: { code: 'VALIDATION', message: checked.message } } })
      }
      const summary =
        checked.payload.type === 'table'
          ? { rendered: 'table', rows: checked.payload.rows.length }
          : { rendered: 'chart' }
      return { isError: false, text: JSON.stringify(summary), result: summary, render: checked.payload }
    }
    if (learning != null && isLearningTool(name)) return this.#bounded(await learning.run(name, args))
    const outcome = await this.mcp.call(name, args)
    if (name === 'list_resources' && !outcome.isError) {
      const { names } = await this.#tools()
      const resources = (outcome.result as { resources?: ResourceInfo[] } | null)?.resources ?? []
      return this.#bounded({ isError: false, result: { resources: visibleResources(resources, names) } })
    }
    return this.#bounded(outcome)
  }

  #bounded (outcome: ToolOutcome): ToolRun {
    const bounded = boundResult(outcome.result, this.maxResultChars)
    return { isError: outcome.isError, text: bounded.text, result: bounded.value }
  }

  async close (): Promise<void> {
    await this.mcp.close()
  }
}
