import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { MAX_BATCH_SIZE } from '@modelcontextprotocol/sdk/server/requestBody.js'
import {
  JSONRPCMessageSchema,
  SUPPORTED_PROTOCOL_VERSIONS,
  type JSONRPCMessage
} from '@modelcontextprotocol/sdk/types.js'
import { requestContext } from '@svc/core/kit'
import type { CallOptions, ToolCatalog } from '../tools/catalog.js'
import { isRequest } from './json-transport.js'
import { inOrder, overBudget } from './batch-limits.js'
import { ServerPool } from './server-pool.js'
import { protectedResource } from './protected-resource.js'

export interface McpRouteOptions {
  path: string
  bodyLimit: number
  /** Built on ready, when every plugin has registered its operations. */
  catalog: () => ToolCatalog
  call: Omit<CallOptions, 'log'>
  /** At shutdown, how long calls in flight may finish before they are stopped. */
  shutdownGraceMs: number
  /** What the answers of one POST's calls may hold together, in characters. */
  maxBatchChars: number
}

/** Transport-level refusals are JSON-RPC error objects, as the SDK's own transport sends them. */
async function refuse (reply: FastifyReply, status: number, code: number, message: string): Promise<FastifyReply> {
  return await reply.code(status).send({ jsonrpc: '2.0', error: { code, message }, id: null })
}

function parse (body: unknown): JSONRPCMessage[] | null {
  const list = Array.isArray(body) ? body : [body]
  const out: JSONRPCMessage[] = []
  for (const raw of list) {
    const m = JSONRPCMessageSchema.safeParse(raw)
    if (!m.success) return null
    out.push(m.data)
  }
  return out
}

/**
 * `POST <path>`: MCP Streamable HTTP, stateless, JSON responses (no session, no SSE stream):
 * the same Accept, batch, initialize and protocol-version rules as the SDK's server transport.
 * Authenticated like REST (bearer, or X-Client-Id for read-only clients); answers go through
 * Fastify's reply, so hooks (request ids, rate-limit headers, metrics) see them like any route.
 */
export async function mcpRoute (app: FastifyInstance, opts: McpRouteOptions): Promise<void> {
  const pool = new ServerPool(opts.catalog)
  // Before the HTTP server closes (it waits for every request in flight): calls that do not finish
  // in the grace are stopped and answered, so the host closes its database instead of being killed.
  app.addHook('preClose', async () => {
    await pool.drain(opts.shutdownGraceMs)
  })
  const { challenge } = protectedResource(app, opts.path)
  // Every 401 of this scope (no, bad or expired credentials) names the metadata document.
  app.addHook('onSend', async (request, reply) => {
    if (reply.statusCode === 401) void reply.header('www-authenticate', challenge(request))
  })

  app.post(
    opts.path,
    {
      bodyLimit: opts.bodyLimit,
      onRequest: async (request) => {
        await app.svc.auth.authenticate(request, { allowClient: true })
      }
    },
    async (request, reply) => {
      const accept = request.headers.accept ?? ''
      if (!accept.includes('application/json') || !accept.includes('text/event-stream')) {
        return await refuse(
          reply,
          406,
          -32000,
          'Not Acceptable: Client must accept both application/json and text/event-stream'
        )
      }
      if (Array.isArray(request.body) && (request.body.length === 0 || request.body.length > MAX_BATCH_SIZE)) {
        return await refuse(reply, 400, -32600, `Invalid Request: a batch holds 1 to ${MAX_BATCH_SIZE} messages`)
      }
      const messages = parse(request.body)
      if (messages === null) return await refuse(reply, 400, -32700, 'Parse error: Invalid JSON-RPC message')
      const ids = messages.filter(isRequest).map((m) => m.id)
      // Responses are matched to requests by id: two requests with one id could not both be answered.
      if (new Set(ids).size !== ids.length) {
        return await refuse(reply, 400, -32600, 'Invalid Request: two requests of the batch share an id')
      }
      const initialize = messages.some((m) => 'method' in m && m.method === 'initialize')
      if (initialize && messages.length > 1) {
        return await refuse(reply, 400, -32600, 'Invalid Request: Only one initialization request is allowed')
      }
      const version = request.headers['mcp-protocol-version']
      if (!initialize && version !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(String(version))) {
        return await refuse(
          reply,
          400,
          -32000,
          `Bad Request: Unsupported protocol version: ${String(version)} (supported versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`
        )
      }
      const ctx = requestContext(request, 'mcp')
      // Each call is a request for the rate limits: those past the budget are answered without running.
      const refused = await overBudget(request, messages)
      const run = refused.size === 0 ? messages : messages.filter((m) => !isRequest(m) || !refused.has(m.id))
      const batch = { remaining: opts.maxBatchChars, limit: opts.maxBatchChars }
      const done = await pool.exchange(ctx, { ...opts.call, log: request.log, batch }, run, {
        requestInfo: { headers: request.headers }
      })
      const answers = inOrder(messages, done, refused)
      // Only notifications (or responses, or cancelled calls): accepted, nothing to answer.
      if (answers.length === 0) return await reply.code(202).send()
      return await reply
        .code(200)
        .type('application/json')
        .send(answers.length === 1 ? answers[0] : answers)
    }
  )

  // Stateless: no server-to-client stream (GET) and no session to end (DELETE), as the transport
  // spec allows; refused in the service's envelope like any other method a route does not take.
  const notAllowed = async (_request: FastifyRequest, reply: FastifyReply): Promise<never> => {
    void reply.header('allow', 'POST')
    throw Object.assign(new Error('this MCP endpoint is stateless: send JSON-RPC messages with POST'), {
      statusCode: 405,
      code: 'METHOD_NOT_ALLOWED'
    })
  }
  app.get(opts.path, notAllowed)
  app.delete(opts.path, notAllowed)
}
