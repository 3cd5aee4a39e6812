import {
  GraphQLBoolean,
  GraphQLFloat,
  GraphQLID,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLString,
  type GraphQLFieldConfig,
  type GraphQLFieldConfigMap,
  type GraphQLOutputType
} from 'graphql'
import type { FieldModel, ResourceModel } from '@svc/core/kit'
import { capitalize, isGraphqlName, typeName } from './names.js'
import { DateTimeScalar, JsonScalar } from './scalars.js'

/** The stored shape of a File field (spec "File field stored shape"); `url` only for public files. */
export const FileMetaType = new GraphQLObjectType({
  name: 'FileMeta',
  description: 'An attached file; upload and fetch it over REST (`/api/v1/<path>/:id/<field>`)',
  fields: {
    key: { type: GraphQLString },
    size: { type: GraphQLFloat },
    contentType: { type: GraphQLString },
    originalName: { type: GraphQLString },
    uploadedAt: { type: DateTimeScalar },
    url: { type: GraphQLString }
  }
})

/** Declared fields GraphQL can name; others (e.g. `first-name`) stay REST-only, as the README says. */
export function namedFields (fields: readonly FieldModel[]): FieldModel[] {
  return fields.filter((f) => isGraphqlName(f.name))
}

/**
 * A field's output type. Every declared field is nullable: a field the caller's roles may not
 * read is absent from the service's answer and so reads as null (the documented field-ACL choice).
 */
function outputType (f: FieldModel, stem: string): GraphQLOutputType {
  switch (f.kind) {
    case 'string':
      return GraphQLString
    case 'number':
      return GraphQLFloat
    case 'boolean':
      return GraphQLBoolean
    case 'date':
      return DateTimeScalar
    case 'file':
      return FileMetaType
    case 'object': {
      const fields = namedFields(f.fields ?? [])
      if (fields.length === 0) return JsonScalar
      const name = `${stem}${capitalize(f.name)}`
      return new GraphQLObjectType({
        name,
        fields: () => Object.fromEntries(fields.map((c) => [c.name, { type: outputType(c, name) }]))
      })
    }
    case 'array':
      return new GraphQLList(
        f.items === undefined
          ? JsonScalar
          : outputType({ ...f.items, name: f.items.name === '' ? `${f.name}Item` : f.items.name }, stem)
      )
    default:
      return JsonScalar
  }
}

/** Adds the relation fields to a record type (resolved by the loaders, see operations/relations.ts). */
export type RelationFields = (model: ResourceModel) => GraphQLFieldConfigMap<unknown, unknown>

/**
 * One object type per schema: `_id`, the declared and computed fields, the system fields,
 * `availableTransitions` (a list for one state field, a JSON object keyed by field for several)
 * and one field per relation. Built lazily so relations can point at each other.
 */
export function recordType (
  model: ResourceModel,
  opts: { softDelete: boolean; relations: RelationFields; name?: string }
): GraphQLObjectType {
  const name = opts.name ?? typeName(model)
  const machines = Object.keys(model.stateMachines)
  return new GraphQLObjectType({
    name,
    description: `A ${model.path} record`,
    fields: () => {
      const fields: GraphQLFieldConfigMap<unknown, unknown> = { _id: { type: new GraphQLNonNull(GraphQLID) } }
      for (const f of namedFields(model.fields)) fields[f.name] = { type: outputType(f, name) }
      const system: Record<string, GraphQLFieldConfig<unknown, unknown>> = {
        userId: { type: GraphQLString, description: 'the owning tenant' },
        accountId: { type: GraphQLString },
        createdAt: { type: DateTimeScalar },
        updatedAt: { type: DateTimeScalar }
      }
      if (opts.softDelete) {
        system.deletedAt = { type: DateTimeScalar, description: 'set on deleted (restorable) records' }
      }
      if (machines.length === 1) {
        system.availableTransitions = {
          type: new GraphQLList(new GraphQLNonNull(GraphQLString)),
          description: `states ${machines[0]} may move to next`
        }
      }
      if (machines.length > 1) {
        system.availableTransitions = {
          type: JsonScalar,
          description: 'for each state field, the states it may move to next'
        }
      }
      return { ...fields, ...system, ...opts.relations(model) }
    }
  })
}
