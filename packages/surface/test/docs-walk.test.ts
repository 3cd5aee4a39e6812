import t from 'tap'
import { finishDocument } from '../src/docs/swagger-document.js'
import { finishOpenApiDocument } from '../src/docs/openapi-document.js'

// Both finishers share one walk over @fastify/swagger's paths; each converts in its own dialect.
const op = (extra: Record<string, unknown>): Record<string, unknown> => ({
  parameters: [{ name: 'id', in: 'path', required: true, ...extra }],
  responses: { 200: { description: 'ok' } }
})

t.test('one walk, two dialects: tool paths, undeclared path parameters, the error envelope', async (t) => {
  const two = finishDocument({
    swagger: '2.0',
    paths: {
      '/files/{*}': { get: { responses: { 200: { description: 'a file' } } } },
      '/api/v1/notes/{id}/{field}': { get: op({ type: 'string' }), 'x-ignored': {} }
    }
  })
  t.same(Object.keys(two.paths), ['/files/{path}', '/api/v1/notes/{id}/{field}'], "Fastify's * named")
  t.same(
    two.paths['/files/{path}'].get.parameters,
    [{ name: 'path', in: 'path', required: true, type: 'string' }],
    '2.0 declares it'
  )
  const field = two.paths['/api/v1/notes/{id}/{field}'].get
  t.same(
    field.parameters.map((p: { name: string }) => p.name),
    ['id', 'field'],
    'the undeclared one added after the given ones'
  )
  t.same(field.responses.default.schema, { $ref: '#/definitions/ErrorEnvelope' })
  t.notOk('x-ignored' in two.paths['/api/v1/notes/{id}/{field}'], 'only HTTP methods are operations')
  t.equal(field.operationId, 'getApiV1NotesByIdByField')

  const three = finishOpenApiDocument({
    openapi: '3.1.0',
    paths: {
      '/files/{*}': { get: { responses: { 200: { description: 'a file' } } } },
      '/api/v1/notes/{id}': {
        put: {
          ...op({ schema: { type: 'string', nullable: true } }),
          requestBody: { content: { 'application/json': { schema: { type: 'string', nullable: true } } } }
        }
      }
    }
  })
  t.same(
    three.paths['/files/{path}'].get.parameters,
    [{ name: 'path', in: 'path', required: true, schema: { type: 'string' } }],
    '3.1 declares it'
  )
  const put = three.paths['/api/v1/notes/{id}'].put
  t.same(put.parameters[0].schema, { type: ['string', 'null'] }, 'parameters in 3.1 form')
  t.same(
    put.requestBody.content['application/json'].schema,
    { type: ['string', 'null'] },
    'the request body in 3.1 form'
  )
  t.same(put.responses.default.content['application/json'].schema, { $ref: '#/components/schemas/ErrorEnvelope' })
})
