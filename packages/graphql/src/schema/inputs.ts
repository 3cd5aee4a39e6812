import {
  GraphQLBoolean, GraphQLEnumType, GraphQLFloat, GraphQLID, GraphQLInputObjectType, GraphQLList, GraphQLNonNull, GraphQLString,
  type GraphQLInputFieldConfigMap, type GraphQLInputType, type GraphQLScalarType
} from 'graphql'
import { ValidationError, type FieldModel, type ResourceModel } from '@svc/core'
import { capitalize, typeName } from './names.js'
import { namedFields } from './records.js'
import { DateTimeScalar, JsonScalar } from './scalars.js'

const SCALARS: Partial<Record<FieldModel['kind'], GraphQLScalarType>> = {
  string: GraphQLString, number: GraphQLFloat, boolean: GraphQLBoolean, date: DateTimeScalar
}

/**
 * A writable field's input type. All nullable: `required` and every other field rule is checked
 * by the service (one VALIDATION error naming the field, as on REST); null clears on update.
 */
function inputType (f: FieldModel, stem: string): GraphQLInputType {
  const scalar = SCALARS[f.kind]
  if (scalar !== undefined) return scalar
  if (f.kind === 'object') {
    const fields = writable(f.fields ?? [])
    if (fields.length === 0) return JsonScalar
    const name = `${stem}${capitalize(f.name)}Input`
    return new GraphQLInputObjectType({ name, fields: () => Object.fromEntries(fields.map((c) => [c.name, { type: inputType(c, name.slice(0, -5)) }])) })
  }
  if (f.kind === 'array') return new GraphQLList(f.items === undefined ? JsonScalar : inputType({ ...f.items, name: f.items.name === '' ? `${f.name}Item` : f.items.name }, stem))
  return JsonScalar
}

/** Computed fields are derived and File fields are set by upload: neither is accepted in a record. */
function writable (fields: readonly FieldModel[]): FieldModel[] {
  return namedFields(fields).filter((f) => f.computed === undefined && f.kind !== 'file')
}

/** `<Type>Input`: the record argument of create and update mutations. */
export function recordInput (model: ResourceModel): GraphQLInputObjectType | null {
  const fields = writable(model.fields)
  if (fields.length === 0) return null
  const name = typeName(model)
  return new GraphQLInputObjectType({
    name: `${name}Input`,
    description: `Fields of a ${model.path} record as a client writes them`,
    fields: () => Object.fromEntries(fields.map((f) => [f.name, { type: inputType(f, name) }]))
  })
}

interface Filterable { name: string, type: GraphQLScalarType }

/** Top-level stored scalar fields (and arrays of scalars, matched by element), plus `_id` and the timestamps. */
function filterable (model: ResourceModel): Filterable[] {
  const out: Filterable[] = [{ name: '_id', type: GraphQLID }]
  for (const f of namedFields(model.fields)) {
    if (f.computed !== undefined) continue
    const scalar = SCALARS[f.kind] ?? (f.kind === 'array' && f.items !== undefined ? SCALARS[f.items.kind] : undefined)
    if (scalar !== undefined) out.push({ name: f.name, type: scalar })
  }
  out.push({ name: 'createdAt', type: DateTimeScalar }, { name: 'updatedAt', type: DateTimeScalar })
  return out
}

const operatorTypes = new Map<GraphQLScalarType, GraphQLInputObjectType>()

/** `StringOperators`, `FloatOperators`, …: REST's operators (`$gt $gte $lt $lte $ne $in`, `$regex $options` on strings). */
function operatorsOf (scalar: GraphQLScalarType): GraphQLInputObjectType {
  let t = operatorTypes.get(scalar)
  if (t !== undefined) return t
  const fields: GraphQLInputFieldConfigMap = {
    gt: { type: scalar }, gte: { type: scalar }, lt: { type: scalar }, lte: { type: scalar }, ne: { type: scalar },
    in: { type: new GraphQLList(new GraphQLNonNull(scalar)) }
  }
  if (scalar === GraphQLString) {
    fields.regex = { type: GraphQLString, description: 'a regular expression (REST $regex rules)' }
    fields.options = { type: GraphQLString, description: 'regex flags: i, m, s, x' }
  }
  t = new GraphQLInputObjectType({ name: `${scalar.name}Operators`, fields })
  operatorTypes.set(scalar, t)
  return t
}

/** `<Type>Filter`: equality per field, and `_operators` per field (`{ score: { gte: 5 } }`). */
export function filterInput (model: ResourceModel): GraphQLInputObjectType {
  const name = typeName(model)
  const fields = filterable(model)
  const operators = new GraphQLInputObjectType({
    name: `${name}FilterOperators`,
    fields: () => Object.fromEntries(fields.map((f) => [f.name, { type: operatorsOf(f.type) }]))
  })
  return new GraphQLInputObjectType({
    name: `${name}Filter`,
    description: `Conditions on ${model.path} records, all of which must hold`,
    fields: () => ({ ...Object.fromEntries(fields.map((f) => [f.name, { type: f.type }])), _operators: { type: operators } })
  })
}

/** `<Type>Sort`: `<field>_ASC` / `<field>_DESC` for every filterable field. */
export function sortEnum (model: ResourceModel): GraphQLEnumType {
  const values: Record<string, { value: string }> = {}
  for (const f of filterable(model)) {
    values[`${f.name}_ASC`] = { value: `${f.name}:asc` }
    values[`${f.name}_DESC`] = { value: `${f.name}:desc` }
  }
  return new GraphQLEnumType({ name: `${typeName(model)}Sort`, values })
}

const OPERATOR_KEYS = new Set(['gt', 'gte', 'lt', 'lte', 'ne', 'in', 'regex', 'options'])

/**
 * A `<Type>Filter` argument as core's filter (`{ field: value | { $op: value } }`); core then
 * applies REST's filter rules (allow-list, casting, field ACL). A field given both an equality
 * and operators is refused: say it once, `_operators: { f: { in: [...] } }`.
 */
export function toCoreFilter (arg: Record<string, unknown> | null | undefined): Record<string, unknown> | undefined {
  if (arg == null) return undefined
  const { _operators: ops, ...eq } = arg as { _operators?: Record<string, Record<string, unknown> | null> }
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(eq)) if (v !== undefined && v !== null) out[k] = v
  for (const [field, o] of Object.entries(ops ?? {})) {
    if (o == null) continue
    if (Object.hasOwn(out, field)) throw new ValidationError(`filter: '${field}' has both a value and _operators; use one`, { field })
    const mongo: Record<string, unknown> = {}
    for (const [op, v] of Object.entries(o)) if (OPERATOR_KEYS.has(op) && v !== undefined && v !== null) mongo[`$${op}`] = v
    if (Object.keys(mongo).length > 0) out[field] = mongo
  }
  return out
}
