/**
 * JSON Schema (what TypeBox emits and Fastify validates) down to what a Swagger 2.0 document
 * may hold: 2.0 has no `anyOf`, `oneOf`, `const`, type arrays or `null`, so those become their
 * nearest 2.0 form (`x-nullable`, `enum`, or an untyped schema keeping the original under
 * `x-anyOf`) and everything else 2.0 does not know is dropped. Document-only: validation keeps
 * the full schemas.
 */
type Schema = Record<string, unknown>

/** `typeof` as a value, to compare two values' types (valid-typeof wants literals on `typeof`). */
const typeOf = (v: unknown): string => typeof v

const SCHEMA_KEYS = new Set([
  '$ref',
  'format',
  'title',
  'description',
  'default',
  'multipleOf',
  'maximum',
  'exclusiveMaximum',
  'minimum',
  'exclusiveMinimum',
  'maxLength',
  'minLength',
  'pattern',
  'maxItems',
  'minItems',
  'uniqueItems',
  'maxProperties',
  'minProperties',
  'required',
  'enum',
  'additionalProperties',
  'type',
  'items',
  'allOf',
  'properties',
  'discriminator',
  'readOnly',
  'xml',
  'externalDocs',
  'example'
])
const PARAM_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'array', 'file'])
const PARAM_KEYS = new Set([
  'name',
  'in',
  'description',
  'required',
  'type',
  'format',
  'allowEmptyValue',
  'items',
  'collectionFormat',
  'default',
  'maximum',
  'exclusiveMaximum',
  'minimum',
  'exclusiveMinimum',
  'maxLength',
  'minLength',
  'pattern',
  'maxItems',
  'minItems',
  'uniqueItems',
  'enum',
  'multipleOf'
])

const isObject = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v)
const isNullSchema = (s: unknown): boolean => isObject(s) && s.type === 'null'

/** Draft-6 numeric `exclusiveMinimum: 5` is 2.0's `minimum: 5, exclusiveMinimum: true`. */
function bounds (out: Schema, s: Schema): void {
  for (const [ex, plain] of [
    ['exclusiveMinimum', 'minimum'],
    ['exclusiveMaximum', 'maximum']
  ] as const) {
    if (typeof s[ex] === 'number') {
      out[plain] = s[ex]
      out[ex] = true
    }
  }
}

function union (branches: unknown[], out: Schema): Schema {
  const real = branches.filter((b) => !isNullSchema(b))
  if (real.length < branches.length) out['x-nullable'] = true
  if (real.length === 1) return { ...toSwagger2Schema(real[0]), ...out }
  const consts = real.filter((b): b is Schema => isObject(b) && 'const' in b)
  if (consts.length === real.length && consts.length > 0) {
    const type = typeof consts[0].const
    if (consts.every((c) => typeOf(c.const) === type) && ['string', 'number', 'boolean'].includes(type)) {
      return { ...out, type, enum: consts.map((c) => c.const) }
    }
  }
  return { ...out, 'x-anyOf': real.map(toSwagger2Schema) }
}

export function toSwagger2Schema (input: unknown): Schema {
  if (!isObject(input)) return {}
  const s = input
  const out: Schema = {}
  for (const [k, v] of Object.entries(s)) {
    if (k.startsWith('x-') || (SCHEMA_KEYS.has(k) && k !== 'exclusiveMinimum' && k !== 'exclusiveMaximum')) out[k] = v
  }
  bounds(out, s)
  if (Array.isArray(s.examples) && s.examples.length > 0 && out.example === undefined) out.example = s.examples[0]
  if ('const' in s) out.enum = [s.const]
  if (Array.isArray(s.type)) {
    const types = s.type.filter((t) => t !== 'null')
    if (types.length < s.type.length) out['x-nullable'] = true
    if (types.length === 1) out.type = types[0]
    else delete out.type
  } else if (s.type === 'null') {
    delete out.type
    out['x-nullable'] = true
  }
  // Ajv's (and OpenAPI 3.0's) `nullable`: 2.0 says it with `x-nullable`, and an enum lists no null.
  if (s.nullable === true) out['x-nullable'] = true
  if (Array.isArray(out.enum) && out.enum.includes(null)) {
    out['x-nullable'] = true
    out.enum = out.enum.filter((v) => v !== null)
  }
  if (Array.isArray(out.required) && out.required.length === 0) delete out.required
  if (Array.isArray(out.enum) && out.enum.length === 0) delete out.enum
  if (isObject(s.properties)) {
    out.properties = Object.fromEntries(Object.entries(s.properties).map(([k, v]) => [k, toSwagger2Schema(v)]))
  }
  if (isObject(s.additionalProperties)) out.additionalProperties = toSwagger2Schema(s.additionalProperties)
  if (isObject(s.items)) out.items = toSwagger2Schema(s.items)
  else if (Array.isArray(s.items)) out.items = {}
  if (Array.isArray(s.allOf)) out.allOf = s.allOf.map(toSwagger2Schema)
  const branches = s.anyOf ?? s.oneOf
  return Array.isArray(branches) ? union(branches, out) : out
}

/** A query, path or header parameter: a primitive (or array of primitives) with flat keywords. */
export function toSwagger2Parameter (input: Schema): Schema {
  if (input.in === 'body') return { ...input, schema: toSwagger2Schema(input.schema) }
  const flat = toSwagger2Schema(input)
  const out: Schema = {}
  for (const [k, v] of Object.entries({ ...input, ...flat })) {
    if (k.startsWith('x-') || PARAM_KEYS.has(k)) out[k] = v
  }
  if (typeof out.type !== 'string' || !PARAM_TYPES.has(out.type)) {
    // A union or free-form value travels as text in a URL anyway.
    out.type = 'string'
    delete out.enum
    delete out.format
  }
  if (out.type === 'array') {
    const items = isObject(out.items) ? out.items : {}
    out.items = {
      ...items,
      type:
        typeof items.type === 'string' && PARAM_TYPES.has(items.type) && items.type !== 'array' ? items.type : 'string'
    }
  } else {
    delete out.items
  }
  if (out.in === 'path') out.required = true
  return out
}
