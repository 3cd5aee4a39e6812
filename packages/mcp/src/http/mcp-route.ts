import { createRequire } from 'node:module'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import type { RequestContext } from '@svc/core'
import type { CallOptions, ToolCatalog } from '../tools/catalog.js'

const { version } = createRequire(import.meta.url)('../../package.json') as { version: string }
const SERVER_INFO = { name: 'svc', version }

/** Shown to the model once per session (the `initialize` answer). */
export const INSTRUCTIONS = [
  'Tools over a multi-tenant data service. Every tool works inside the caller\'s own tenant: records of other tenants are never visible (an unknown or foreign id is NOT_FOUND).',
  'Call list_resources first to see the collections, their fields and the tools for each.',
  'Lists are paged (page, perPage; nextPage is null on the last page) and filtered with {"field": value} or operator objects such as {"amount": {"$gte": 100}}.',
  'A failed call returns {"error": {"code", "message", "details"}} with a stable code (VALIDATION, INVALID_TRANSITION, FORBIDDEN, NOT_FOUND, CONFLICT, ...): read details to fix the arguments.'
].join(' ')

export interface McpRouteOptions {
  path: string
  bodyLimit: number
  /** Built on ready, when every plugin has registered its operations. */
  catalog: () => ToolCatalog
  call: Omit<CallOptions, 'log'>
}

// Only what the transport reads; the rest of the request stays with Fastify.
const FORWARDED = ['accept', 'content-type', 'mcp-protocol-version']

function webRequest (request: FastifyRequest, path: string): Request {
  const headers = new Headers()
  for (const name of FORWARDED) {
    const v = request.headers[name]
    if (typeof v === 'string') headers.set(name, v)
  }
  return new Request(`http://localhost${path}`, { method: 'POST', headers })
}

/**
 * A fresh SDK `Server` + stateless transport per POST (the SDK's rule for stateless mode); both
 * only point at the catalog built at start-up, so the per-request cost is a few allocations.
 */
function serve (catalog: ToolCatalog, ctx: RequestContext, call: CallOptions): Server {
  const server = new Server(SERVER_INFO, { capabilities: { tools: { listChanged: false } }, instructions: INSTRUCTIONS })
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: catalog.list(ctx.identity!) }))
  server.setRequestHandler(CallToolRequestSchema, async (req) => await catalog.call(ctx, req.params.name, req.params.arguments ?? {}, call))
  return server
}

/**
 * `POST <path>`: MCP Streamable HTTP in stateless mode with JSON responses. Authenticated like
 * REST (bearer, or X-Client-Id for read-only clients); the transport's answer is sent through
 * Fastify's reply, so hooks (request ids, rate-limit headers, metrics) see it like any route.
 */
export async function mcpRoute (app: FastifyInstance, opts: McpRouteOptions): Promise<void> {
  app.post(opts.path, {
    bodyLimit: opts.bodyLimit,
    onRequest: async (request) => { await app.svc.auth.authenticate(request, { allowClient: true }) }
  }, async (request, reply) => {
    const ctx: RequestContext = { identity: request.identity, surface: 'mcp', req: request, requestId: request.id }
    const server = serve(opts.catalog(), ctx, { ...opts.call, log: request.log })
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true })
    await server.connect(transport)
    try {
      const res = await transport.handleRequest(webRequest(request, opts.path), { parsedBody: request.body })
      void reply.code(res.status)
      res.headers.forEach((value, name) => { void reply.header(name, value) })
      const body = await res.text()
      return await reply.send(body === '' ? undefined : body)
    } finally {
      await server.close()
    }
  })

  // Stateless: no server-to-client stream (GET) and no session to end (DELETE), as the transport spec allows.
  const notAllowed = async (_request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    await reply.code(405).header('allow', 'POST').send({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: this MCP endpoint is stateless; send JSON-RPC messages with POST' }, id: null })
  }
  app.get(opts.path, notAllowed)
  app.delete(opts.path, notAllowed)
}
