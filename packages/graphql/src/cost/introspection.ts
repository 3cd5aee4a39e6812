import { isEnumType, isInputObjectType, isInterfaceType, isObjectType, type GraphQLSchema } from 'graphql'

/**
 * What each list of the introspection types can hold in this schema, so introspection is priced
 * like data (a list counts what it may return) instead of refused: `__Schema.types` every type,
 * `__Type.fields` every field of every type, `__Field.args` every argument, and so on. Each is
 * the schema-wide total, an upper bound for any one parent, and the schema never changes.
 */
export function introspectionTotals (schema: GraphQLSchema): Map<string, number> {
  const types = Object.values(schema.getTypeMap())
  let fields = 0
  let args = 0
  let inputFields = 0
  let enumValues = 0
  for (const t of types) {
    if (isObjectType(t) || isInterfaceType(t)) {
      for (const f of Object.values(t.getFields())) {
        fields++
        args += f.args.length
      }
    } else if (isInputObjectType(t)) inputFields += Object.keys(t.getFields()).length
    else if (isEnumType(t)) enumValues += t.getValues().length
  }
  const directives = schema.getDirectives()
  for (const d of directives) args += d.args.length
  return new Map([
    ['__Schema.types', types.length],
    ['__Schema.directives', directives.length],
    ['__Type.fields', fields],
    ['__Type.inputFields', inputFields],
    ['__Type.enumValues', enumValues],
    ['__Type.interfaces', types.length],
    ['__Type.possibleTypes', types.length],
    ['__Field.args', args],
    ['__Directive.args', args]
  ])
}
