import { createRequire } from 'node:module'
import type { FastifyInstance } from 'fastify'
import swagger, { type FastifyDynamicSwaggerOptions } from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import { finishDocument } from './swagger-document.js'
import { finishOpenApiDocument } from './openapi-document.js'

export interface DocsOptions {
  /** Where the UI lives; the documents are `<routePrefix>/swagger.json` (2.0) and `/openapi.json` (3.1). Default `/api-docs`. */
  routePrefix?: string
  /** `info.title`; default `svc API`. */
  title?: string
  /** `info.version`; default `1`. */
  version?: string
  /** `info.description` (Markdown). */
  description?: string
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The OpenAPI 3.1 document (the Swagger 2.0 one is `app.swagger()`). */
    openapiDocument: FastifyInstance['swagger']
  }
}

// Hashes of the UI's own inline code, shipped with @fastify/swagger-ui.
const csp = createRequire(import.meta.url)('@fastify/swagger-ui/static/csp.json') as {
  script: string[]
  style: string[]
}

// Swagger UI lays itself out for 980 px without a viewport; these rules keep it readable on a phone.
const NARROW_SCREEN_CSS = `
@media (max-width: 600px) {
  .swagger-ui .wrapper { padding: 0 8px; }
  .swagger-ui .info { margin: 16px 0; }
  .swagger-ui .opblock .opblock-summary { flex-wrap: wrap; }
  .swagger-ui .opblock .opblock-summary-path { max-width: 100%; word-break: break-all; }
  .swagger-ui .opblock .opblock-summary-description { flex-basis: 100%; }
  .swagger-ui table { display: block; overflow-x: auto; }
  .swagger-ui .scheme-container .schemes { flex-wrap: wrap; }
}`

/**
 * The API descriptions from the route schemas Fastify validates with (@fastify/swagger twice:
 * Swagger 2.0 and OpenAPI 3.1) and the interactive page (@fastify/swagger-ui), both from this
 * package's files: no CDN. Register before the routes it should describe (it collects them as
 * they are added).
 */
export async function installDocs (app: FastifyInstance, opts: DocsOptions): Promise<void> {
  const prefix = (opts.routePrefix ?? '/api-docs').replace(/\/+$/, '')
  const info = {
    title: opts.title ?? 'svc API',
    version: opts.version ?? '1',
    ...(opts.description !== undefined ? { description: opts.description } : {})
  }
  await app.register(swagger, {
    swagger: { info, consumes: ['application/json'], produces: ['application/json'] },
    transformObject: (doc) => finishDocument((doc as { swaggerObject: Record<string, any> }).swaggerObject)
  })
  await app.register(swagger, {
    decorator: 'openapiDocument',
    openapi: { openapi: '3.1.0', info },
    transformObject: (doc) => finishOpenApiDocument((doc as { openapiObject: Record<string, any> }).openapiObject)
  } as FastifyDynamicSwaggerOptions)
  await app.register(async (page) => {
    // Swagger UI's page has no viewport tag: a phone would lay it out 980 px wide and zoom out.
    page.addHook('onSend', async (_request, reply, payload) => {
      if (typeof payload !== 'string' || !String(reply.getHeader('content-type')).startsWith('text/html')) {
        return payload
      }
      return payload.replace(
        '<head>',
        '<head>\n      <meta name="viewport" content="width=device-width, initial-scale=1">'
      )
    })
    await page.register(swaggerUi, {
      routePrefix: prefix,
      // The page and its assets only; a CSP of its own (helmet's JSON CSP would blank it), offline.
      // Scripts only from here; styles may be inline, as the UI's components set them at run time.
      staticCSP: `default-src 'self'; base-uri 'self'; img-src 'self' data:; font-src 'self' data:; object-src 'none'; script-src 'self' ${csp.script.join(' ')}; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'; form-action 'self'`,
      uiConfig: { validatorUrl: null, deepLinking: true, docExpansion: 'list' },
      theme: { css: [{ filename: 'narrow-screens.css', content: NARROW_SCREEN_CSS }] }
    })
  })
  app.get(`${prefix}/swagger.json`, { schema: { hide: true } }, async () => app.swagger())
  app.get(`${prefix}/openapi.json`, { schema: { hide: true } }, async () => app.openapiDocument())
}
