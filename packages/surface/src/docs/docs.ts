import { createRequire } from 'node:module'
import type { FastifyInstance } from 'fastify'
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import { finishDocument } from './swagger-document.js'

export interface DocsOptions {
  /** Where the UI lives; the document is `<routePrefix>/swagger.json`. Default `/api-docs`. */
  routePrefix?: string
  /** `info.title`; default `svc API`. */
  title?: string
  /** `info.version`; default `1`. */
  version?: string
  /** `info.description` (Markdown). */
  description?: string
}

// Hashes of the UI's own inline code, shipped with @fastify/swagger-ui.
const csp = createRequire(import.meta.url)('@fastify/swagger-ui/static/csp.json') as { script: string[], style: string[] }

/**
 * The API description from the route schemas Fastify validates with (@fastify/swagger, Swagger
 * 2.0) and the interactive page (@fastify/swagger-ui), both from this package's files: no CDN.
 * Register before the routes it should describe (it collects them as they are added).
 */
export async function installDocs (app: FastifyInstance, opts: DocsOptions): Promise<void> {
  const prefix = (opts.routePrefix ?? '/api-docs').replace(/\/+$/, '')
  await app.register(swagger, {
    swagger: {
      info: { title: opts.title ?? 'svc API', version: opts.version ?? '1', ...(opts.description !== undefined ? { description: opts.description } : {}) },
      consumes: ['application/json'],
      produces: ['application/json']
    },
    transformObject: (doc) => finishDocument((doc as { swaggerObject: Record<string, any> }).swaggerObject)
  })
  await app.register(swaggerUi, {
    routePrefix: prefix,
    // The page and its assets only; a CSP of its own (helmet's JSON CSP would blank it), offline.
    // Scripts only from here; styles may be inline, as the UI's components set them at run time.
    staticCSP: `default-src 'self'; base-uri 'self'; img-src 'self' data:; font-src 'self' data:; object-src 'none'; script-src 'self' ${csp.script.join(' ')}; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'; form-action 'self'`,
    uiConfig: { validatorUrl: null, deepLinking: true, docExpansion: 'list' }
  })
  app.get(`${prefix}/swagger.json`, { schema: { hide: true } }, async () => app.swagger())
}
