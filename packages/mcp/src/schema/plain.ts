import type { JsonSchema } from '../types.js'

type Node = Record<string, unknown>

function isNode (v: unknown): v is Node {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

function walk (v: unknown, visit: (n: Node) => void): void {
  if (Array.isArray(v)) {
    for (const x of v) walk(x, visit)
    return
  }
  if (!isNode(v)) return
  visit(v)
  for (const x of Object.values(v)) walk(x, visit)
}

/** Adds `null` to a node's `type` (a string or a list). */
export function allowNull (n: Node): void {
  if (typeof n.type === 'string') n.type = n.type === 'null' ? 'null' : [n.type, 'null']
  else if (Array.isArray(n.type) && !n.type.includes('null')) n.type = [...n.type, 'null']
  if (Array.isArray(n.enum) && !n.enum.includes(null)) n.enum = [...n.enum, null]
}

/**
 * Core's TypeBox route schemas as standard JSON Schema, so every MCP client and model provider
 * reads them: TypeBox's symbol keys are dropped (JSON copy) and Ajv's `nullable` keyword becomes
 * a `null` type. The copy is the caller's to change.
 */
export function plainSchema (schema: unknown): JsonSchema {
  const copy = JSON.parse(JSON.stringify(schema)) as JsonSchema
  walk(copy, (n) => {
    if (n.nullable === true) {
      delete n.nullable
      allowNull(n)
    }
  })
  return copy
}

/**
 * A read (output) schema loosened where stored data can legally differ from today's schema file:
 * records written before a schema change may hold values outside a new `enum` or `min`, and a
 * computed field may yield null. Types and formats stay; value rules move to the descriptions.
 */
export function outputSchema (schema: unknown): JsonSchema {
  const copy = plainSchema(schema)
  walk(copy, (n) => {
    delete n.enum
    delete n.minimum
    delete n.pattern
  })
  return copy
}
