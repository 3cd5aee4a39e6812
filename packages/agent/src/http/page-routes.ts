import { readFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { FastifyInstance } from 'fastify'

// `public/` sits two levels above this file both in `src/http` and in `dist/http`.
const PUBLIC = fileURLToPath(new URL('../../public/', import.meta.url))

/** The UMD builds of the chart libraries, served by the agent itself (no CDN). */
function vendored (pkg: string, file: string): string {
  return join(dirname(fileURLToPath(import.meta.resolve(pkg))), file)
}

interface Asset {
  body: Buffer
  type: string
  cache: string
}

const PAGE_CSP = [
  "default-src 'none'",
  // Vega compiles its expressions with the Function constructor.
  "script-src 'self' 'unsafe-eval'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'"
].join('; ')

/** `GET /`: the chat page, its script and style, and vega, vega-lite and vega-embed. */
export async function pageRoutes (app: FastifyInstance): Promise<void> {
  const load = async (path: string, type: string, cache: string): Promise<Asset> => ({
    body: await readFile(path),
    type,
    cache
  })
  const js = 'text/javascript; charset=utf-8'
  const assets: Record<string, Asset> = {
    'chat.js': await load(join(PUBLIC, 'chat.js'), js, 'no-cache'),
    'chat.css': await load(join(PUBLIC, 'chat.css'), 'text/css; charset=utf-8', 'no-cache'),
    'vega.min.js': await load(vendored('vega', 'vega.min.js'), js, 'public, max-age=86400'),
    'vega-lite.min.js': await load(vendored('vega-lite', 'vega-lite.min.js'), js, 'public, max-age=86400'),
    'vega-embed.min.js': await load(vendored('vega-embed', 'vega-embed.min.js'), js, 'public, max-age=86400')
  }
  const page = await readFile(join(PUBLIC, 'index.html'))
  app.get('/', async (_req, reply) => {
    return await reply
      .headers({
        'content-type': 'text/html; charset=utf-8',
        'content-security-policy': PAGE_CSP,
        'cache-control': 'no-cache',
        'x-content-type-options': 'nosniff',
        'referrer-policy': 'no-referrer'
      })
      .send(page)
  })
  app.get<{ Params: { name: string } }>('/assets/:name', async (req, reply) => {
    const asset = Object.hasOwn(assets, req.params.name) ? assets[req.params.name] : undefined
    if (asset == null) {
      return await reply.code(404).send({ error: { code: 'NOT_FOUND', message: `no asset ${req.params.name}` } })
    }
    return await reply
      .headers({ 'content-type': asset.type, 'cache-control': asset.cache, 'x-content-type-options': 'nosniff' })
      .send(asset.body)
  })
}
