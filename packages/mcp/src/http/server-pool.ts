import { createRequire } from 'node:module'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { CallToolRequestSchema, ListToolsRequestSchema, type JSONRPCMessage, type MessageExtraInfo } from '@modelcontextprotocol/sdk/types.js'
import type { RequestContext } from '@svc/core'
import type { CallOptions, ToolCatalog } from '../tools/catalog.js'
import { JsonResponseTransport } from './json-transport.js'

const { version } = createRequire(import.meta.url)('../../package.json') as { version: string }
const SERVER_INFO = { name: 'svc', version }
// Idle servers kept for reuse; more concurrent requests than this just build a few more.
const MAX_IDLE = 64

/** Shown to the model once per session (the `initialize` answer). */
export const INSTRUCTIONS = [
  'Tools over a multi-tenant data service. Every tool works inside the caller\'s own tenant: records of other tenants are never visible (an unknown or foreign id is NOT_FOUND).',
  'Call list_resources first to see the collections, their fields and the tools for each.',
  'Lists are paged (page, perPage; nextPage is null on the last page) and filtered with {"field": value} or operator objects such as {"amount": {"$gte": 100}}.',
  'A failed call returns {"error": {"code", "message", "details"}} with a stable code (VALIDATION, INVALID_TRANSITION, FORBIDDEN, NOT_FOUND, CONFLICT, ...): read details to fix the arguments.'
].join(' ')

/** One connected SDK server and the request it serves now (a borrowed server serves one request at a time). */
interface Slot { server: Server, transport: JsonResponseTransport, ctx: RequestContext | null, call: CallOptions | null }

/**
 * SDK servers for the stateless endpoint. Building a `Server` costs about 150 µs (its
 * zod-checked handlers), so each stays connected to its own transport and requests borrow an
 * idle one: the handlers read the borrower's context from the slot.
 */
export class ServerPool {
  readonly #idle: Slot[] = []
  readonly #catalog: () => ToolCatalog

  constructor (catalog: () => ToolCatalog) {
    this.#catalog = catalog
  }

  async #make (): Promise<Slot> {
    const server = new Server(SERVER_INFO, { capabilities: { tools: { listChanged: false } }, instructions: INSTRUCTIONS })
    const slot: Slot = { server, transport: new JsonResponseTransport(), ctx: null, call: null }
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: this.#catalog().list(slot.ctx!.identity!) }))
    server.setRequestHandler(CallToolRequestSchema, async (req) => await this.#catalog().call(slot.ctx!, req.params.name, req.params.arguments ?? {}, slot.call!))
    await server.connect(slot.transport)
    return slot
  }

  /** Runs one POST's JSON-RPC messages for `ctx`; resolves with the responses to its requests. */
  async exchange (ctx: RequestContext, call: CallOptions, messages: JSONRPCMessage[], extra: MessageExtraInfo): Promise<JSONRPCMessage[]> {
    const slot = this.#idle.pop() ?? await this.#make()
    slot.ctx = ctx
    slot.call = call
    try {
      return await slot.transport.exchange(messages, extra)
    } finally {
      slot.ctx = null
      slot.call = null
      if (this.#idle.length < MAX_IDLE) this.#idle.push(slot)
      else await slot.server.close()
    }
  }

  /** Closes the idle servers (app close). */
  async close (): Promise<void> {
    await Promise.all(this.#idle.splice(0).map(async (slot) => await slot.server.close()))
  }
}
