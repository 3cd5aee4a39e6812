import { GraphQLError, GraphQLScalarType, Kind, type ValueNode } from 'graphql'

const ISO_DATE = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/

function isoDate (value: unknown): string {
  if (value instanceof Date && !Number.isNaN(value.getTime())) return value.toISOString()
  if (typeof value === 'string' && ISO_DATE.test(value) && !Number.isNaN(Date.parse(value))) return value
  throw new GraphQLError(`DateTime must be an ISO 8601 date-time string, got ${JSON.stringify(value)}`)
}

/** Records carry dates as ISO 8601 strings (core's JSON form); inputs are checked here and cast by core. */
export const DateTimeScalar = new GraphQLScalarType({
  name: 'DateTime',
  description: 'An ISO 8601 date-time string, e.g. 2026-01-31T12:00:00.000Z',
  serialize: isoDate,
  parseValue: isoDate,
  parseLiteral (ast) {
    if (ast.kind !== Kind.STRING) throw new GraphQLError('DateTime must be a string', { nodes: ast })
    return isoDate(ast.value)
  }
})

function literal (ast: ValueNode, variables: Record<string, unknown> | null | undefined): unknown {
  switch (ast.kind) {
    case Kind.STRING:
    case Kind.BOOLEAN:
    case Kind.ENUM:
      return ast.value
    case Kind.INT:
    case Kind.FLOAT:
      return Number(ast.value)
    case Kind.NULL:
      return null
    case Kind.LIST:
      return ast.values.map((v) => literal(v, variables))
    case Kind.OBJECT:
      return Object.fromEntries(ast.fields.map((f) => [f.name.value, literal(f.value, variables)]))
    case Kind.VARIABLE:
      return variables?.[ast.name.value]
  }
}

/** `Mixed` fields, aggregation rows and audit images: any JSON value. */
export const JsonScalar = new GraphQLScalarType({
  name: 'JSON',
  description: 'Any JSON value (Mixed fields, aggregation rows, audit images)',
  serialize: (v) => v,
  parseValue: (v) => v,
  parseLiteral: literal
})
