import {
  GraphQLBoolean,
  GraphQLFloat,
  GraphQLInputObjectType,
  GraphQLList,
  GraphQLString,
  type GraphQLInputType,
  type GraphQLScalarType
} from 'graphql'
import type { FieldModel, ResourceModel } from '@svc/core/kit'
import { capitalize, typeName } from './names.js'
import { namedFields } from './records.js'
import { DateTimeScalar, JsonScalar } from './scalars.js'

export const SCALARS: Partial<Record<FieldModel['kind'], GraphQLScalarType>> = {
  string: GraphQLString,
  number: GraphQLFloat,
  boolean: GraphQLBoolean,
  date: DateTimeScalar
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
    return new GraphQLInputObjectType({
      name,
      fields: () => Object.fromEntries(fields.map((c) => [c.name, { type: inputType(c, name.slice(0, -5)) }]))
    })
  }
  if (f.kind === 'array') {
    return new GraphQLList(
      f.items === undefined
        ? JsonScalar
        : inputType({ ...f.items, name: f.items.name === '' ? `${f.name}Item` : f.items.name }, stem)
    )
  }
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
