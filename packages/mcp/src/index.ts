import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { mcpRoute } from './http/mcp-route.js'
import { ToolCatalog } from './tools/catalog.js'
import { base64Length, largestFileField } from './tools/file-tools.js'
import type { McpOptions } from './types.js'

export type { McpOptions, McpTool, ToolOutput, ToolAudience } from './types.js'
export { ToolCatalog } from './tools/catalog.js'
export { INSTRUCTIONS } from './http/server-pool.js'

const DEFAULT_MAX_RESULT_CHARS = 100_000
// Below the reference server's close-with-grace delay (10 s), which kills the process.
const DEFAULT_SHUTDOWN_GRACE_MS = 3000
// Fastify's default body limit; raised below when base64 file uploads need more.
const DEFAULT_BODY_LIMIT = 1024 * 1024
// Room for the JSON-RPC envelope and the other arguments around an upload's base64 text.
const ENVELOPE_BYTES = 64 * 1024

async function svcMcp (app: FastifyInstance, opts: McpOptions): Promise<void> {
  const path = opts.path ?? '/mcp'
  if (!/^\/[\w\-/.]*$/.test(path)) throw new Error('@svc/mcp: option `path` must be a URL path such as /mcp')
  const maxResultChars = opts.maxResultChars ?? DEFAULT_MAX_RESULT_CHARS
  if (!Number.isInteger(maxResultChars) || maxResultChars < 1000) {
    throw new Error('@svc/mcp: option `maxResultChars` must be an integer >= 1000')
  }
  const production = opts.production ?? process.env.NODE_ENV === 'production'
  if (opts.tools !== undefined && opts.tools !== 'full' && opts.tools !== 'compact') {
    throw new Error("@svc/mcp: option `tools` must be 'full' or 'compact'")
  }
  if (opts.readOnly !== undefined && typeof opts.readOnly !== 'boolean') {
    throw new Error('@svc/mcp: option `readOnly` must be a boolean')
  }
  if (
    opts.exclude !== undefined &&
    (!Array.isArray(opts.exclude) || !opts.exclude.every((p) => typeof p === 'string'))
  ) {
    throw new Error('@svc/mcp: option `exclude` must be an array of schema paths')
  }
  const shutdownGraceMs = opts.shutdownGraceMs ?? DEFAULT_SHUTDOWN_GRACE_MS
  if (!Number.isInteger(shutdownGraceMs) || shutdownGraceMs < 0) {
    throw new Error('@svc/mcp: option `shutdownGraceMs` must be an integer >= 0')
  }

  // Built on ready: soft delete, audit and files may register after this plugin, and decide which tools exist.
  let catalog: ToolCatalog | null = null
  app.addHook('onReady', async () => {
    catalog = new ToolCatalog(app.svc, { tools: opts.tools, readOnly: opts.readOnly, exclude: opts.exclude })
    // Set once the tools exist (it is also part of the manifest's cache key).
    app.svc.features.mcp = true
  })
  app.svc.manifest.contribute((model) => ({ mcp: catalog?.namesFor(model) ?? [] }))

  await app.register(mcpRoute, {
    path,
    // The registry is loaded with core: a File field's largest upload, base64-encoded, must fit.
    bodyLimit: Math.max(DEFAULT_BODY_LIMIT, base64Length(largestFileField(app.svc.registry.all())) + ENVELOPE_BYTES),
    catalog: () => catalog!,
    call: { maxResultChars, production },
    shutdownGraceMs,
    // Ten full list answers: a batch's calls share it, so one POST cannot answer megabytes.
    maxBatchChars: 10 * maxResultChars
  })
}

export default fp(svcMcp, { name: '@svc/mcp', fastify: '5.x', dependencies: ['@svc/core'] })
export { svcMcp }
