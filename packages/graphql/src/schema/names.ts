import { DEFAULT_VERSION, type ResourceModel } from '@svc/core/kit'

const GRAPHQL_NAME = /^[_A-Za-z][_0-9A-Za-z]*$/

/** True for a name GraphQL accepts for a field or argument (`__` is reserved for introspection). */
export function isGraphqlName (name: string): boolean {
  return GRAPHQL_NAME.test(name) && !name.startsWith('__')
}

/**
 * `<path>` in operation names: `contactsById`. A schema outside the default version carries it,
 * `v2_contactsById`, as MCP's tool names do; characters GraphQL refuses become `_`.
 */
export function opPrefix (model: ResourceModel): string {
  const raw = model.version === DEFAULT_VERSION ? model.path : `${model.version}_${model.path}`
  const safe = raw.replace(/[^_0-9A-Za-z]/g, '_')
  return /^[0-9]/.test(safe) ? `_${safe}` : safe
}

/** `contacts` → `Contacts`, the record type's name and the stem of its input and enum types. */
export function typeName (model: ResourceModel): string {
  const p = opPrefix(model)
  return p.charAt(0).toUpperCase() + p.slice(1)
}

export function capitalize (s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1)
}
