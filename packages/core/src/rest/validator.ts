import { Ajv, type Options } from 'ajv'
import addFormatsModule from 'ajv-formats'
import type { FastifySchemaCompiler } from 'fastify'

// ajv-formats is CJS; under NodeNext its default import is the module namespace.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  ajv: Ajv
) => Ajv

// ownProperties: a field named `constructor` or `valueOf` is read from the body only, never its prototype.
const common: Options = { useDefaults: true, strict: false, ownProperties: true }

// Bodies are JSON and must already have the declared types: no coercion, so `"5"`, `true` or
// `"x"` for a Number, or a bare string for an array, is 400 instead of a silently changed value.
// Unknown keys are refused, not removed (a typo must not be a silent loss), and every problem is
// reported at once (the envelope lists them, bounded).
// No defaults here: the service applies them (every surface alike) after screening field ACL on
// the keys the client actually sent; a default filled in first would read as a forbidden write.
const bodyAjv = addFormats(
  new Ajv({ ...common, useDefaults: false, coerceTypes: false, removeAdditional: false, allErrors: true })
)
// Query strings and params are text by nature: coerce as Fastify does by default.
const textAjv = addFormats(new Ajv({ ...common, coerceTypes: 'array', removeAdditional: true, allErrors: false }))

/** Validator compiler for the resource routes (set inside their encapsulated plugin only). */
export const resourceValidatorCompiler: FastifySchemaCompiler<any> = ({ schema, httpPart }) => {
  const ajv = httpPart === 'body' ? bodyAjv : textAjv
  return ajv.compile(schema as object) as ReturnType<FastifySchemaCompiler<any>>
}
