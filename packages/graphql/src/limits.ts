import {
  Kind, getNamedType, getNullableType, isListType, isObjectType,
  type DocumentNode, type FieldNode, type FragmentDefinitionNode, type GraphQLNamedType, type GraphQLSchema, type SelectionSetNode
} from 'graphql'
import { ValidationError } from '@svc/core'

interface Walk {
  schema: GraphQLSchema
  fragments: Map<string, FragmentDefinitionNode>
  variables: Record<string, unknown>
  listSize: number
  /** Fragments being expanded (a cycle is refused by validation; this only stops the walk). */
  open: Set<string>
}

/** How many items a list field may return: its `limit` argument, else the default page size. */
function listSize (node: FieldNode, w: Walk): number {
  const arg = node.arguments?.find((a) => a.name.value === 'limit')
  if (arg?.value.kind === Kind.INT) return Number(arg.value.value)
  if (arg?.value.kind === Kind.VARIABLE) {
    const v = w.variables[arg.value.name.value]
    if (typeof v === 'number') return v
  }
  return w.listSize
}

function selectionCost (set: SelectionSetNode, type: GraphQLNamedType | undefined, multiplier: number, w: Walk): number {
  let total = 0
  for (const sel of set.selections) {
    if (sel.kind === Kind.FIELD) {
      // Introspection (`__schema`, `__typename`) is free: its size does not depend on data.
      if (sel.name.value.startsWith('__') || !isObjectType(type)) continue
      const def = type.getFields()[sel.name.value]
      if (def === undefined) continue
      total += multiplier
      if (sel.selectionSet === undefined) continue
      const nullable = getNullableType(def.type)
      const m = isListType(nullable) ? multiplier * Math.max(1, listSize(sel, w)) : multiplier
      total += selectionCost(sel.selectionSet, getNamedType(def.type), m, w)
    } else if (sel.kind === Kind.INLINE_FRAGMENT) {
      const t = sel.typeCondition !== undefined ? w.schema.getType(sel.typeCondition.name.value) : type
      total += selectionCost(sel.selectionSet, t ?? undefined, multiplier, w)
    } else {
      const name = sel.name.value
      const fragment = w.fragments.get(name)
      if (fragment === undefined || w.open.has(name)) continue
      w.open.add(name)
      total += selectionCost(fragment.selectionSet, w.schema.getType(fragment.typeCondition.name.value) ?? undefined, multiplier, w)
      w.open.delete(name)
    }
  }
  return total
}

/**
 * A query's cost: each field selected costs 1 per parent it can be resolved for, so a field
 * under a list of `limit: 200` costs 200 (lists without a limit count the default page size).
 * The most expensive operation of the document counts.
 */
export function queryCost (schema: GraphQLSchema, document: DocumentNode, variables: Record<string, unknown> = {}, listSize = 20): number {
  const fragments = new Map<string, FragmentDefinitionNode>()
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d)
  const w: Walk = { schema, fragments, variables, listSize, open: new Set() }
  let max = 0
  for (const d of document.definitions) {
    if (d.kind !== Kind.OPERATION_DEFINITION) continue
    const root = d.operation === 'mutation' ? schema.getMutationType() : d.operation === 'subscription' ? schema.getSubscriptionType() : schema.getQueryType()
    max = Math.max(max, selectionCost(d.selectionSet, root ?? undefined, 1, w))
  }
  return max
}

/** mercurius `preExecution` hook refusing (400 VALIDATION) a query above `maxCost` before any resolver runs. */
export function costGuard (schema: GraphQLSchema, maxCost: number, listSize: number) {
  return async (_schema: GraphQLSchema, document: DocumentNode, _context: unknown, variables?: Record<string, unknown>): Promise<void> => {
    const cost = queryCost(schema, document, variables ?? {}, listSize)
    if (cost > maxCost) throw new ValidationError(`query cost ${cost} exceeds the limit of ${maxCost}: ask for fewer records (limit) or fewer nested fields`, { cost, maxCost })
  }
}
