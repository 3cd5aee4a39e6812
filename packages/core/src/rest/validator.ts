import { Ajv, type ErrorObject, type Options, type ValidateFunction } from 'ajv'
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

/**
 * Validator compiler for the resource routes (set inside their encapsulated plugin only). Each
 * validator is compiled on its first use, not at start-up: compiling every route's schemas took
 * ≈230 ms of every start, for routes many deployments never call. Fastify reads `errors` off the
 * function it was given, so the wrapper carries the compiled one's.
 */
export const resourceValidatorCompiler: FastifySchemaCompiler<any> = ({ schema, httpPart }) => {
  const ajv = httpPart === 'body' ? bodyAjv : textAjv
  let compiled: ValidateFunction | null = null
  const validate = (data: unknown): boolean => {
    compiled ??= ajv.compile(schema as object)
    const valid = compiled(data)
    validate.errors = compiled.errors
    return valid
  }
  validate.errors = null as ErrorObject[] | null | undefined
  return validate as ReturnType<FastifySchemaCompiler<any>>
}
