import t from 'tap'
import Fastify, { type RouteOptions } from 'fastify'
import SwaggerParser from '@apidevtools/swagger-parser'
import svcCore, { svcServerOptions } from '@svc/core'
import { JWT_SECRET, SCHEMAS, buildApp, testDb } from './helper.js'
import svcSurface from '../src/index.js'

t.test('API docs', async (t) => {
  const db = await testDb(t)

  t.test('the Swagger 2.0 document is valid and lists exactly the routes served', async (t) => {
    const app = Fastify({ ...svcServerOptions, logger: false })
    const served: Array<{ method: string; url: string }> = []
    // Before every plugin: the live route table as Fastify sees it.
    app.addHook('onRoute', (route: RouteOptions) => {
      if ((route.schema as { hide?: boolean } | undefined)?.hide === true) return
      for (const m of [route.method].flat()) if (m !== 'HEAD') served.push({ method: m.toLowerCase(), url: route.url })
    })
    await app.register(svcSurface, {
      rateLimit: false,
      metrics: {},
      cors: { origins: ['https://a.test'] },
      docs: { title: 'notes API', version: '1.2.3' }
    })
    await app.register(svcCore, { db, jwtSecret: JWT_SECRET, bcryptRounds: 4, schemas: SCHEMAS })
    app.get('/custom/:thing', async () => ({ ok: true }))
    t.teardown(async () => await app.close())
    await app.ready()

    const res = await app.inject({ method: 'GET', url: '/api-docs/swagger.json' })
    t.equal(res.statusCode, 200)
    const doc = res.json()
    t.equal(doc.swagger, '2.0')
    t.same(doc.info, { title: 'notes API', version: '1.2.3' })
    await t.resolves(
      SwaggerParser.validate(structuredClone(doc)),
      'valid against the Swagger 2.0 schema (swagger-parser)'
    )

    const documented = Object.entries<Record<string, unknown>>(doc.paths)
      .flatMap(([path, item]) => Object.keys(item).map((method) => `${method} ${path}`))
      .sort()
    const live = served.map((r) => `${r.method} ${r.url.replace(/:([A-Za-z0-9_]+)/g, '{$1}')}`).sort()
    t.same(documented, [...new Set(live)], 'every served route is documented, and nothing else')
    t.ok(
      documented.includes('get /api/v1/notes/{id}') &&
        documented.includes('post /login') &&
        documented.includes('get /_metrics') &&
        documented.includes('get /custom/{thing}'),
      'core, surface and host routes alike'
    )

    t.same(Object.keys(doc.securityDefinitions).sort(), ['bearer', 'clientId'])
    t.match(doc.securityDefinitions.bearer, { type: 'apiKey', in: 'header', name: 'Authorization' })
    t.match(doc.securityDefinitions.clientId, { type: 'apiKey', in: 'header', name: 'X-Client-Id' })
    t.match(doc.definitions.ErrorEnvelope, {
      type: 'object',
      required: ['error'],
      properties: { error: { required: ['code', 'message'] } }
    })
    const getOne = doc.paths['/api/v1/notes/{id}'].get
    t.same(getOne.security, [{ bearer: [] }, { clientId: [] }], 'reads: bearer or api client')
    t.same(doc.paths['/api/v1/notes/{id}'].put.security, [{ bearer: [] }], 'writes: bearer only')
    t.same(doc.paths['/login'].post.security, [], 'public routes need nothing')
    t.same(getOne.responses.default.schema, { $ref: '#/definitions/ErrorEnvelope' })
    t.same(getOne.tags, ['notes'])
    t.match(
      getOne.parameters.find((p: { in: string }) => p.in === 'path'),
      { name: 'id', in: 'path', required: true, type: 'string' }
    )
    const create = doc.paths['/api/v1/notes'].post.parameters.find((p: { in: string }) => p.in === 'body')
    t.match(
      create.schema,
      { type: 'object', properties: { title: { type: 'string' } }, required: ['title'] },
      'the body schema Fastify validates with'
    )
    const openapi = (await app.inject({ method: 'GET', url: '/api-docs/openapi.json' })).json()
    t.equal(openapi.openapi, '3.1.0')
    await t.resolves(SwaggerParser.validate(structuredClone(openapi)), 'OpenAPI 3.1 valid (swagger-parser)')
    t.same(Object.keys(openapi.paths).sort(), Object.keys(doc.paths).sort(), 'the same routes')
    t.match(openapi.components.securitySchemes.bearer, { type: 'http', scheme: 'bearer' })
    t.same(openapi.paths['/api/v1/notes'].post.responses.default.content['application/json'].schema, {
      $ref: '#/components/schemas/ErrorEnvelope'
    })
    t.same(openapi.servers, [{ url: '/' }])
    const agg = doc.paths['/api/v1/notes/aggregations/{name}'].get
    t.match(agg.parameters, [{ name: 'name', in: 'path', required: true }], 'undeclared path params are declared')
  })

  t.test('/api-docs: Swagger UI served from the package (no CDN) with a CSP of its own', async (t) => {
    const app = await buildApp(t, db, { rateLimit: false })
    const page = await app.inject({ method: 'GET', url: '/api-docs/' })
    t.equal(page.statusCode, 200)
    t.match(page.headers['content-type'], /text\/html/)
    t.notMatch(page.body, /(src|href)="(https?:)?\/\//, 'no asset from another host')
    t.match(page.headers['content-security-policy'], /script-src 'self'/)
    t.match(page.headers['content-security-policy'], /frame-ancestors 'none'/)
    t.equal(page.headers['x-content-type-options'], 'nosniff', 'the other security headers stay')
    const bundle = await app.inject({ method: 'GET', url: '/api-docs/static/swagger-ui-bundle.js' })
    t.equal(bundle.statusCode, 200)
    t.ok(bundle.body.length > 100_000, 'the UI bundle is served locally')
    const init = await app.inject({ method: 'GET', url: '/api-docs/static/swagger-initializer.js' })
    t.match(init.body, /validatorUrl/, 'the online validator badge is off')
    const bare = await app.inject({ method: 'GET', url: '/api-docs' })
    t.equal(bare.statusCode, 200, '/api-docs without the slash')
    t.match(bare.body, /swagger-ui-bundle\.js/)
    t.match(
      bare.body,
      /<meta name="viewport" content="width=device-width, initial-scale=1">/,
      'laid out for the device width'
    )
    const css = await app.inject({ method: 'GET', url: '/api-docs/static/theme/narrow-screens.css' })
    t.match(css.body, /@media \(max-width: 600px\)/)
  })

  t.test('docs: false', async (t) => {
    const app = await buildApp(t, db, { rateLimit: false, docs: false })
    t.equal((await app.inject({ method: 'GET', url: '/api-docs/swagger.json' })).statusCode, 404)
    t.equal((await app.inject({ method: 'GET', url: '/api-docs/openapi.json' })).statusCode, 404)
    t.equal((await app.inject({ method: 'GET', url: '/api-docs' })).statusCode, 404)
  })
})
