// @svc/console: the data console, a single-page app built with Vite into `dist/app`, served by
// this plugin. It talks to the service only through its public API, with the visitor's token.
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { FastifyInstance, FastifyReply, FastifySchema } from 'fastify'
import fp from 'fastify-plugin'
import fastifyStatic from '@fastify/static'
import { PAGE_CSP, renderIndex } from './page.js'

export interface ConsoleOptions {
  /** Where the console lives; default `/console`. */
  prefix?: string
  /** The built app (`index.html` and `assets/`); default this package's `dist/app`. */
  appDir?: string
  /**
   * Also answer `GET /reset-password` (the link of core's reset mails, `<PUBLIC_BASE_URL>/reset-password?token=…`)
   * with a redirect to the console's reset form; default `false` (an app may serve that page itself).
   */
  resetPasswordPage?: boolean
}

// `dist/app` seen from `src/` (tests, `@svc/source`) and from `dist/` (the published package).
const DEFAULT_APP_DIR = fileURLToPath(new URL('../dist/app/', import.meta.url))

function normalizePrefix (prefix: string): string {
  const p = `/${prefix.replace(/^\/+|\/+$/g, '')}`
  if (p === '/' || !/^\/[A-Za-z0-9._~\-/]+$/.test(p)) {
    throw new Error(`@svc/console: prefix '${prefix}' must be a non-root URL path such as '/console'`)
  }
  return p
}

async function svcConsole (app: FastifyInstance, opts: ConsoleOptions): Promise<void> {
  const prefix = normalizePrefix(opts.prefix ?? '/console')
  const appDir = opts.appDir ?? DEFAULT_APP_DIR
  if (!existsSync(join(appDir, 'index.html'))) {
    throw new Error(
      `@svc/console: no built app in ${appDir} (run \`npm run build\` in @svc/console; \`pnpm install\` does it through prepare)`
    )
  }
  const page = renderIndex(appDir, prefix)
  const sendPage = async (reply: FastifyReply): Promise<FastifyReply> =>
    await reply
      .headers({
        'content-type': 'text/html; charset=utf-8',
        'content-security-policy': PAGE_CSP,
        // The page names hashed assets: always revalidate it, cache those forever.
        'cache-control': 'no-cache',
        'referrer-policy': 'no-referrer',
        'x-content-type-options': 'nosniff'
      })
      .send(page)

  // Pages, not API: left out of the API description (@fastify/swagger reads `hide`).
  const schema = { hide: true } as FastifySchema
  await app.register(async (scope) => {
    // One route per built file (wildcard: false): an unknown asset is the router's 404 envelope.
    await scope.register(fastifyStatic, {
      root: join(appDir, 'assets'),
      prefix: `${prefix}/assets/`,
      wildcard: false,
      index: false,
      decorateReply: false,
      preCompressed: true,
      immutable: true,
      maxAge: '365d'
    })
    scope.get(prefix, { schema }, async (_req, reply) => await reply.redirect(`${prefix}/`))
    if (opts.resetPasswordPage === true) {
      scope.get('/reset-password', { schema }, async (req, reply) => {
        const token = (req.query as { token?: unknown }).token
        const query = typeof token === 'string' ? `?${new URLSearchParams({ token }).toString()}` : ''
        return await reply.header('referrer-policy', 'no-referrer').redirect(`${prefix}/reset-password${query}`)
      })
    }
    // Every other path under the prefix is a route of the app (history API): the same page.
    scope.get(`${prefix}/*`, { schema }, async (req, reply) => {
      if (req.url.startsWith(`${prefix}/assets/`)) {
        return await reply.code(404).send({ error: { code: 'NOT_FOUND', message: `no asset ${req.url}` } })
      }
      return await sendPage(reply)
    })
  })
}

export default fp(svcConsole, { name: '@svc/console', fastify: '5.x', dependencies: ['@svc/core'] })
export { svcConsole, PAGE_CSP }
