import t from 'tap'
import { Type } from '@sinclair/typebox'
import { toSwagger2Parameter, toSwagger2Schema } from '../src/docs/swagger2-schema.js'
import { finishOpenApiDocument, toOpenApi31Schema } from '../src/docs/openapi-document.js'
import { finishDocument } from '../src/docs/swagger-document.js'
import { operationBasics, operationId, pathParameters, toolPath } from '../src/docs/operations.js'

t.test('schemas down to Swagger 2.0', async (t) => {
  t.same(
    toSwagger2Schema(Type.Union([Type.String({ maxLength: 5 }), Type.Null()])),
    { type: 'string', maxLength: 5, 'x-nullable': true },
    'nullable union'
  )
  t.same(
    toSwagger2Schema({ type: ['number', 'null'], minimum: 0 }),
    { type: 'number', minimum: 0, 'x-nullable': true },
    'type array'
  )
  t.same(toSwagger2Schema({ type: 'null' }), { 'x-nullable': true })
  t.same(toSwagger2Schema({ type: ['string', 'number'] }), {}, 'several types: untyped')
  t.same(
    toSwagger2Schema(Type.Union([Type.Literal('a'), Type.Literal('b')])),
    { type: 'string', enum: ['a', 'b'] },
    'literal union is an enum'
  )
  t.same(toSwagger2Schema(Type.Literal(3)), { type: 'number', enum: [3] }, 'const')
  t.same(
    toSwagger2Schema(Type.Union([Type.String(), Type.Number()])),
    { 'x-anyOf': [{ type: 'string' }, { type: 'number' }] },
    'a real union is kept as an extension'
  )
  t.same(
    toSwagger2Schema({ type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 10 }),
    { type: 'number', minimum: 0, exclusiveMinimum: true, maximum: 10, exclusiveMaximum: true },
    'draft-6 exclusive bounds'
  )
  t.same(
    toSwagger2Schema({ type: 'string', examples: ['x', 'y'], $id: 'X', nullable: true, not: {} }),
    { type: 'string', example: 'x', 'x-nullable': true },
    'examples, Ajv nullable, unknown keywords dropped'
  )
  t.same(
    toSwagger2Schema({ type: 'string', enum: ['a', null], nullable: true }),
    { type: 'string', enum: ['a'], 'x-nullable': true },
    'an enum lists no null in 2.0'
  )
  t.same(
    toSwagger2Schema({
      type: 'object',
      properties: { a: { type: ['string', 'null'] } },
      required: [],
      patternProperties: { '^x': {} },
      additionalProperties: { anyOf: [{ type: 'integer' }, { type: 'null' }] }
    }),
    {
      type: 'object',
      properties: { a: { type: 'string', 'x-nullable': true } },
      additionalProperties: { type: 'integer', 'x-nullable': true }
    },
    'nested, empty required dropped'
  )
  t.same(toSwagger2Schema({ type: 'array', items: [{ type: 'string' }] }), { type: 'array', items: {} }, 'tuples')
  t.same(toSwagger2Schema({ allOf: [{ type: 'string', const: 'q' }], enum: [] }), {
    allOf: [{ type: 'string', enum: ['q'] }]
  })
  t.same(toSwagger2Schema('nope'), {})
  t.same(toSwagger2Schema({ 'x-kept': 1, title: 'T' }), { 'x-kept': 1, title: 'T' })
})

t.test('parameters down to Swagger 2.0', async (t) => {
  t.same(toSwagger2Parameter({ name: 'q', in: 'query', type: 'string', maxLength: 9, description: 'd' }), {
    name: 'q',
    in: 'query',
    type: 'string',
    maxLength: 9,
    description: 'd'
  })
  t.same(
    toSwagger2Parameter({ name: 'id', in: 'path', type: 'string' }),
    { name: 'id', in: 'path', type: 'string', required: true },
    'path params are required'
  )
  t.same(
    toSwagger2Parameter({ name: 'v', in: 'query', anyOf: [{ type: 'string' }, { type: 'number' }] }),
    { name: 'v', in: 'query', type: 'string', 'x-anyOf': [{ type: 'string' }, { type: 'number' }] },
    'a union travels as text (the union kept as an extension)'
  )
  t.same(
    toSwagger2Parameter({ name: 'v', in: 'query', type: 'object', properties: {} }),
    { name: 'v', in: 'query', type: 'string' },
    'an object travels as text'
  )
  t.same(toSwagger2Parameter({ name: 'v', in: 'query', type: 'array', items: { type: 'integer' } }), {
    name: 'v',
    in: 'query',
    type: 'array',
    items: { type: 'integer' }
  })
  t.same(toSwagger2Parameter({ name: 'v', in: 'query', type: 'array' }), {
    name: 'v',
    in: 'query',
    type: 'array',
    items: { type: 'string' }
  })
  t.same(toSwagger2Parameter({ name: 'v', in: 'query', type: 'string', items: { type: 'string' }, 'x-a': 1 }), {
    name: 'v',
    in: 'query',
    type: 'string',
    'x-a': 1
  })
  t.same(toSwagger2Parameter({ name: 'b', in: 'body', schema: { type: ['string', 'null'] } }), {
    name: 'b',
    in: 'body',
    schema: { type: 'string', 'x-nullable': true }
  })
})

t.test('schemas as OpenAPI 3.1 says them', async (t) => {
  t.same(
    toOpenApi31Schema({ type: 'string', enum: ['a', null], nullable: true }),
    { type: ['string', 'null'], enum: ['a', null] },
    'nullable is a null type'
  )
  t.same(
    toOpenApi31Schema({ type: ['string', 'null'], nullable: true }),
    { type: ['string', 'null'] },
    'already nullable'
  )
  t.same(toOpenApi31Schema({ nullable: true, description: 'any' }), { description: 'any' }, 'untyped stays untyped')
  t.same(
    toOpenApi31Schema({
      type: 'object',
      properties: { f: { type: 'file' } },
      anyOf: [{ type: 'integer', nullable: true }],
      items: { type: 'boolean', nullable: true }
    }),
    {
      type: 'object',
      properties: { f: { type: 'string', contentMediaType: 'application/octet-stream' } },
      anyOf: [{ type: ['integer', 'null'] }],
      items: { type: ['boolean', 'null'] }
    },
    'nested, uploads'
  )
  t.equal(toOpenApi31Schema('x'), 'x')
})

t.test('operations for tools', async (t) => {
  t.equal(toolPath('/files/{*}'), '/files/{path}', 'no parameter named *')
  t.equal(operationId('/api/v1/deal-notes/{id}/history', 'get'), 'getApiV1DealNotesByIdHistory')
  t.equal(operationId('/.well-known/oauth-protected-resource', 'get'), 'getWellKnownOauthProtectedResource')
  t.same(
    pathParameters('/files/{path}', [{ name: '*', in: 'path' }], (name) => ({ name })),
    [{ name: 'path', in: 'path', description: 'the rest of the path' }]
  )
  t.same(
    pathParameters('/a/{id}', [], (name) => ({ name, in: 'path' })),
    [{ name: 'id', in: 'path' }],
    'undeclared ones added'
  )
  t.match(
    operationBasics('/login', 'post', {}),
    { summary: 'POST /login', tags: ['auth'], security: [] },
    'public: an explicit empty security'
  )
  t.same(
    operationBasics('/api/v1/notes', 'post', {
      security: [{ bearer: [] }],
      summary: 's',
      tags: ['x'],
      operationId: 'o'
    }),
    { summary: 's', operationId: 'o', tags: ['x'], security: [{ bearer: [] }] }
  )
})

t.test('finishing documents @fastify/swagger generated', async (t) => {
  const openapi = finishOpenApiDocument({
    openapi: '3.1.0',
    servers: [{ url: 'https://api.test' }],
    components: { schemas: { S: { type: 'string', nullable: true } } },
    paths: {
      '/files/{*}': {
        get: {
          parameters: [
            { name: '*', in: 'path', required: true, schema: { type: 'string' } },
            { name: 'x', in: 'header' }
          ],
          responses: { 200: { description: 'blob' }, 204: { description: 'x', content: { 'text/plain': {} } } }
        },
        post: {
          requestBody: { content: { 'application/json': { schema: { type: 'integer', nullable: true } } } },
          responses: {}
        }
      },
      '/x': { parameters: [], get: { responses: {} } }
    }
  })
  t.same(openapi.servers, [{ url: 'https://api.test' }], 'declared servers kept')
  t.same(openapi.components.schemas.S, { type: ['string', 'null'] })
  t.same(Object.keys(openapi.paths), ['/files/{path}', '/x'])
  t.same(
    openapi.paths['/x'],
    {
      get: {
        summary: 'GET /x',
        operationId: 'getX',
        tags: ['service'],
        security: [],
        responses: { default: openapi.paths['/x'].get.responses.default }
      }
    },
    'path-level keys dropped'
  )
  const get = openapi.paths['/files/{path}'].get
  t.match(get.parameters, [
    { name: 'path', in: 'path' },
    { name: 'x', in: 'header' }
  ])
  t.same(get.responses[200], { description: 'blob' })
  t.same(get.responses[204], { description: 'x', content: { 'text/plain': {} } })
  t.same(openapi.paths['/files/{path}'].post.requestBody.content['application/json'].schema, {
    type: ['integer', 'null']
  })
  t.same(finishOpenApiDocument({ openapi: '3.1.0' }).paths, {}, 'an empty document')
  const swagger = finishDocument({
    swagger: '2.0',
    paths: { '/y': { get: { responses: { 200: { description: 'ok' } } } } }
  })
  t.same(swagger.paths['/y'].get.responses[200], { description: 'ok' })
  t.same(finishDocument({ swagger: '2.0' }).paths, {})
})
