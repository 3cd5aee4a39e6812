import t from 'tap'
import { Type } from '@sinclair/typebox'
import { toSwagger2Parameter, toSwagger2Schema } from '../src/docs/swagger2-schema.js'

t.test('schemas down to Swagger 2.0', async (t) => {
  t.same(toSwagger2Schema(Type.Union([Type.String({ maxLength: 5 }), Type.Null()])), { type: 'string', maxLength: 5, 'x-nullable': true }, 'nullable union')
  t.same(toSwagger2Schema({ type: ['number', 'null'], minimum: 0 }), { type: 'number', minimum: 0, 'x-nullable': true }, 'type array')
  t.same(toSwagger2Schema({ type: 'null' }), { 'x-nullable': true })
  t.same(toSwagger2Schema({ type: ['string', 'number'] }), {}, 'several types: untyped')
  t.same(toSwagger2Schema(Type.Union([Type.Literal('a'), Type.Literal('b')])), { type: 'string', enum: ['a', 'b'] }, 'literal union is an enum')
  t.same(toSwagger2Schema(Type.Literal(3)), { type: 'number', enum: [3] }, 'const')
  t.same(toSwagger2Schema(Type.Union([Type.String(), Type.Number()])), { 'x-anyOf': [{ type: 'string' }, { type: 'number' }] }, 'a real union is kept as an extension')
  t.same(toSwagger2Schema({ type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 10 }), { type: 'number', minimum: 0, exclusiveMinimum: true, maximum: 10, exclusiveMaximum: true }, 'draft-6 exclusive bounds')
  t.same(toSwagger2Schema({ type: 'string', examples: ['x', 'y'], $id: 'X', nullable: true, not: {} }), { type: 'string', example: 'x' }, 'examples, unknown keywords dropped')
  t.same(toSwagger2Schema({ type: 'object', properties: { a: { type: ['string', 'null'] } }, required: [], patternProperties: { '^x': {} }, additionalProperties: { anyOf: [{ type: 'integer' }, { type: 'null' }] } }),
    { type: 'object', properties: { a: { type: 'string', 'x-nullable': true } }, additionalProperties: { type: 'integer', 'x-nullable': true } }, 'nested, empty required dropped')
  t.same(toSwagger2Schema({ type: 'array', items: [{ type: 'string' }] }), { type: 'array', items: {} }, 'tuples')
  t.same(toSwagger2Schema({ allOf: [{ type: 'string', const: 'q' }], enum: [] }), { allOf: [{ type: 'string', enum: ['q'] }] })
  t.same(toSwagger2Schema('nope'), {})
  t.same(toSwagger2Schema({ 'x-kept': 1, title: 'T' }), { 'x-kept': 1, title: 'T' })
})

t.test('parameters down to Swagger 2.0', async (t) => {
  t.same(toSwagger2Parameter({ name: 'q', in: 'query', type: 'string', maxLength: 9, description: 'd' }), { name: 'q', in: 'query', type: 'string', maxLength: 9, description: 'd' })
  t.same(toSwagger2Parameter({ name: 'id', in: 'path', type: 'string' }), { name: 'id', in: 'path', type: 'string', required: true }, 'path params are required')
  t.same(toSwagger2Parameter({ name: 'v', in: 'query', anyOf: [{ type: 'string' }, { type: 'number' }] }), { name: 'v', in: 'query', type: 'string', 'x-anyOf': [{ type: 'string' }, { type: 'number' }] }, 'a union travels as text (the union kept as an extension)')
  t.same(toSwagger2Parameter({ name: 'v', in: 'query', type: 'object', properties: {} }), { name: 'v', in: 'query', type: 'string' }, 'an object travels as text')
  t.same(toSwagger2Parameter({ name: 'v', in: 'query', type: 'array', items: { type: 'integer' } }), { name: 'v', in: 'query', type: 'array', items: { type: 'integer' } })
  t.same(toSwagger2Parameter({ name: 'v', in: 'query', type: 'array' }), { name: 'v', in: 'query', type: 'array', items: { type: 'string' } })
  t.same(toSwagger2Parameter({ name: 'v', in: 'query', type: 'string', items: { type: 'string' }, 'x-a': 1 }), { name: 'v', in: 'query', type: 'string', 'x-a': 1 })
  t.same(toSwagger2Parameter({ name: 'b', in: 'body', schema: { type: ['string', 'null'] } }), { name: 'b', in: 'body', schema: { type: 'string', 'x-nullable': true } })
})
