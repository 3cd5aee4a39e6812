import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { ServiceUnavailableError, UnauthenticatedError } from '../errors.js'
import type { ToolSpec } from '../model/types.js'

export type HeaderSource = () => Promise<Record<string, string>> | Record<string, string>

/** What a tool call produced, as the model and the stream see it. */
export interface ToolOutcome {
  isError: boolean
  result: unknown
}

/** A service tool as listed, with the service's own read-only annotation. */
export interface McpToolSpec extends ToolSpec {
  readOnly: boolean
}

const VERSION = '0.1.0'

/** 401 from the service means the identity is no longer valid (an expired bearer). */
function translate (err: unknown, url: string): Error {
  if (err instanceof StreamableHTTPError && err.code === 401) {
    return new UnauthenticatedError(
      "the service refused the agent's credentials (expired or invalid token)",
      undefined,
      { cause: err }
    )
  }
  if (err instanceof UnauthenticatedError) return err
  return new ServiceUnavailableError('the service is unavailable, try again later', undefined, {
    cause: err,
    internal: `${url}: ${(err as Error).message}`
  })
}

/**
 * The service's MCP tools through the official SDK client over Streamable HTTP. Headers are
 * read on every request, so one connected client follows its identity's token refreshes.
 */
export class McpTools {
  readonly #url: string
  readonly #headers: HeaderSource
  #client: Promise<Client> | null = null
  #tools: McpToolSpec[] | null = null

  constructor (url: string, headers: HeaderSource) {
    this.#url = url
    this.#headers = headers
  }

  async #connected (): Promise<Client> {
    if (this.#client == null) {
      this.#client = (async () => {
        const client = new Client({ name: '@svc/agent', version: VERSION })
        const transport = new StreamableHTTPClientTransport(new URL(this.#url), {
          fetch: async (input, init) => {
            const headers = new Headers(init?.headers)
            for (const [k, v] of Object.entries(await this.#headers())) headers.set(k, v)
            return await fetch(input, { ...init, headers })
          }
        })
        await client.connect(transport)
        return client
      })()
      this.#client.catch(() => {
        this.#client = null
      })
    }
    try {
      return await this.#client
    } catch (err) {
      throw translate(err, this.#url)
    }
  }

  /** The tools the service offers this identity (listed once per client). */
  async list (): Promise<McpToolSpec[]> {
    if (this.#tools != null) return this.#tools
    const client = await this.#connected()
    const tools: McpToolSpec[] = []
    let cursor: string | undefined
    try {
      do {
        const page = await client.listTools(cursor != null ? { cursor } : {})
        for (const t of page.tools) {
          tools.push({
            name: t.name,
            description: t.description,
            parameters: t.inputSchema as Record<string, unknown>,
            readOnly: t.annotations?.readOnlyHint === true
          })
        }
        cursor = page.nextCursor
      } while (cursor != null)
    } catch (err) {
      throw translate(err, this.#url)
    }
    this.#tools = tools
    return tools
  }

  /** Calls a tool; a tool's own error (validation, not found, forbidden) is an outcome, not a throw. */
  async call (name: string, args: Record<string, unknown>): Promise<ToolOutcome> {
    const client = await this.#connected()
    let res: CallToolResult
    try {
      res = (await client.callTool({ name, arguments: args })) as CallToolResult
    } catch (err) {
      const e = translate(err, this.#url)
      // The SDK reports a refused call (unknown tool, bad arguments) as a protocol error: the model can correct it.
      if (
        (err as { code?: unknown }).code != null &&
        typeof (err as { code?: unknown }).code === 'number' &&
        (err as { code: number }).code < 0
      ) {
        return { isError: true, result: { error: { code: 'VALIDATION', message: (err as Error).message } } }
      }
      throw e
    }
    if (res.isError === true) {
      const text = res.content.map((c) => (c.type === 'text' ? c.text : '')).join('')
      try {
        return { isError: true, result: JSON.parse(text) }
      } catch {
        return { isError: true, result: { error: { code: 'TOOL_ERROR', message: text } } }
      }
    }
    if (res.structuredContent !== undefined) return { isError: false, result: res.structuredContent }
    return { isError: false, result: res.content.map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join('\n') }
  }

  async close (): Promise<void> {
    const client = this.#client
    this.#client = null
    if (client != null) await (await client.catch(() => null))?.close()
  }
}
