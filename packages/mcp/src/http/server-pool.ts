import { setMaxListeners } from 'node:events'
import { createRequire } from 'node:module'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js'
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  type JSONRPCMessage,
  type MessageExtraInfo
} from '@modelcontextprotocol/sdk/types.js'
import type { RequestContext } from '@svc/core'
import type { CallOptions, ToolCatalog } from '../tools/catalog.js'
import { JsonResponseTransport } from './json-transport.js'
import { directCall, handlerError } from './direct-call.js'

const { version } = createRequire(import.meta.url)('../../package.json') as { version: string }
const SERVER_INFO = { name: 'svc', version }
// Idle servers kept for reuse; more concurrent requests than this just build a few more.
const MAX_IDLE = 64
// Calls of one POST run at most this many at a time, so a batch of 100 cannot crowd out other clients.
const BATCH_CONCURRENCY = 4
// Reads one slot's calls may have in flight at once, all listening to its `stop` signal.
const MAX_READS_IN_FLIGHT = 256
const SHUTTING_DOWN = 'the server is shutting down: call again'

/** Shown to the model once per session (the `initialize` answer). */
export const INSTRUCTIONS = [
  "Tools over a multi-tenant data service. Every tool works inside the caller's own tenant: records of other tenants are never visible (an unknown or foreign id is NOT_FOUND).",
  'Call list_resources first to see the collections, their fields and the tools for each.',
  'Lists are paged (page, perPage; nextPage is null on the last page) and filtered with {"field": value} or operator objects such as {"amount": {"$gte": 100}}.',
  'A failed call returns {"error": {"code", "message", "details"}} with a stable code (VALIDATION, INVALID_TRANSITION, FORBIDDEN, NOT_FOUND, CONFLICT, ...): read details to fix the arguments.'
].join(' ')

/**
 * One connected SDK server (a borrowed server serves one request at a time); `stop` aborts that
 * request's work at shutdown.
 */
interface Slot {
  server: Server
  transport: JsonResponseTransport
  stop: AbortController
}

/** What one POST hands its calls, through the SDK's per-request `authInfo.extra`. */
interface Caller {
  ctx: RequestContext
  call: CallOptions
}

/**
 * The caller travels with each message, as the SDK carries auth data to its handlers: no slot
 * field a handler reads, so no context can outlive or cross its request.
 */
function authInfo (caller: Caller): AuthInfo {
  const identity = caller.ctx.identity
  // The bearer token stays with the auth layer that verified it: the handlers need the identity.
  return {
    token: '',
    clientId: identity?.clientId ?? identity?.userId ?? '',
    scopes: identity?.roles ?? [],
    extra: { caller }
  }
}

function callerOf (extra: { authInfo?: AuthInfo }): Caller {
  return extra.authInfo!.extra!.caller as Caller
}

/**
 * SDK servers for the stateless endpoint. Building a `Server` costs about 150 µs (its
 * zod-checked handlers), so each stays connected to its own transport and requests borrow an
 * idle one: the handlers read the borrower's context from the SDK's per-request data.
 */
export class ServerPool {
  readonly #idle: Slot[] = []
  readonly #busy = new Set<Slot>()
  readonly #catalog: () => ToolCatalog
  #settled: (() => void) | null = null

  constructor (catalog: () => ToolCatalog) {
    this.#catalog = catalog
  }

  async #make (): Promise<Slot> {
    const server = new Server(SERVER_INFO, {
      capabilities: { tools: { listChanged: false } },
      instructions: INSTRUCTIONS
    })
    const slot: Slot = { server, transport: new JsonResponseTransport(), stop: new AbortController() }
    // Every read of the slot's calls in flight listens to `stop` (a batch runs BATCH_CONCURRENCY calls,
    // each reading relations in parallel) and stops listening when it ends: more than Node's 10 is no leak.
    setMaxListeners(MAX_READS_IN_FLIGHT, slot.stop.signal)
    server.setRequestHandler(ListToolsRequestSchema, (_req, extra) => ({
      tools: this.#catalog().list(callerOf(extra).ctx.identity!)
    }))
    // Each call's reads stop when the server shuts down. The SDK's own signal (`extra.signal`) adds
    // nothing: the transport settles cancellations itself and never hands them to the SDK, and it
    // is closed only after `stop` aborted; `AbortSignal.any` per call cost ~40 µs.
    server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
      const caller = callerOf(extra)
      const ctx = { ...caller.ctx, signal: slot.stop.signal }
      return await this.#catalog().call(ctx, req.params.name, req.params.arguments ?? {}, caller.call)
    })
    await server.connect(slot.transport)
    return slot
  }

  /** Runs one POST's JSON-RPC messages for `ctx`; resolves with the responses to its requests. */
  async exchange (
    ctx: RequestContext,
    call: CallOptions,
    messages: JSONRPCMessage[],
    extra: MessageExtraInfo
  ): Promise<JSONRPCMessage[]> {
    const slot = this.#idle.pop() ?? (await this.#make())
    this.#busy.add(slot)
    try {
      const direct = directCall(messages)
      if (direct === undefined) {
        return await slot.transport.exchange(
          messages,
          { ...extra, authInfo: authInfo({ ctx, call }) },
          BATCH_CONCURRENCY
        )
      }
      // Answered through the transport, so a shutdown's `abandon` answers it like any other call.
      const answer = slot.transport.expect(direct.id)
      this.#catalog()
        .call({ ...ctx, signal: slot.stop.signal }, direct.name, direct.args, call)
        .then(
          async (result) => {
            await slot.transport.send({ jsonrpc: '2.0', id: direct.id, result })
          },
          async (err: unknown) => {
            await slot.transport.send(handlerError(direct.id, err))
          }
        )
      return [await answer]
    } finally {
      this.#busy.delete(slot)
      if (slot.stop.signal.aborted) await slot.server.close()
      else if (this.#idle.length < MAX_IDLE) this.#idle.push(slot)
      else await slot.server.close()
      if (this.#busy.size === 0) this.#settled?.()
    }
  }

  /**
   * Shutdown: lets the requests in flight finish for up to `graceMs`, then stops the rest —
   * their reads are aborted and each waiting call is answered with an error — so the HTTP
   * server can close and the host can close its database. Closes the idle servers.
   */
  async drain (graceMs: number): Promise<void> {
    if (this.#busy.size > 0) {
      let timer: NodeJS.Timeout | undefined
      await Promise.race([
        new Promise<void>((resolve) => {
          this.#settled = resolve
        }),
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, graceMs)
        })
      ])
      clearTimeout(timer)
      for (const slot of this.#busy) {
        slot.stop.abort(new Error(SHUTTING_DOWN))
        slot.transport.abandon(SHUTTING_DOWN)
      }
    }
    await Promise.all(this.#idle.splice(0).map(async (slot) => await slot.server.close()))
  }
}
