import {
  Kind,
  SchemaMetaFieldDef,
  TypeMetaFieldDef,
  getNamedType,
  getNullableType,
  isInterfaceType,
  isListType,
  isObjectType,
  type DocumentNode,
  type GraphQLField,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLNamedType,
  type GraphQLSchema,
  type SelectionSetNode
} from 'graphql'
import { MAX_BULK_RECORDS, MAX_RELATED, pageRecords } from '@svc/core/kit'
import type { CostHint } from './hints.js'

/**
 * The price of a GraphQL document, in core's unit (values it can return), found in one pass
 * over the document: each fragment is walked once and its result reused wherever it is spread,
 * so a document of fragments that spread each other twice costs its size to analyse, not 2ⁿ.
 *
 * Counts are linear in the number of parents a selection is resolved for: a selection's cost
 * is `a·P + b`, where `a` is what it costs per parent and `b` what it costs whatever the
 * number of parents (a hasMany relation holds up to MAX_RELATED records for the whole batch, an
 * introspection list what the schema holds). That is what makes a fragment's cost one pair,
 * computed once. Every field costs 1 per parent, aliases and `__typename` included. Below a
 * belongsTo/hasOne relation `b` becomes per parent: many parents may name the same target, and
 * the target's lists are then handed out once for each of them.
 */

export interface Analysis {
  /** The costliest operation's price. */
  cost: number
  /** The deepest operation's nesting (introspection fields excluded: their depth is the schema's). */
  depth: number
  /** Root fields of the mutation operation with the most (each aliased mutation is a request). */
  mutations: number
}

export interface AnalysisOptions {
  schema: GraphQLSchema
  /** The service's default page size (lists without a size argument). */
  pageSize: number
  /** What each introspection list can hold (see introspection.ts). */
  introspection: Map<string, number>
  /**
   * The request's variables; `null` before validation, when sizes given by variables are not
   * known yet and count as 1 (a lower bound: only a document over budget whatever its variables
   * is refused that early).
   */
  variables: Record<string, unknown> | null
}

interface Part {
  a: number
  b: number
  depth: number
  mutations: number
}

// Far above any budget, so sums stay finite (and printable) however a document multiplies.
const CAP = 1e15
const cap = (n: number): number => Math.min(n, CAP)
const EMPTY: Part = { a: 0, b: 0, depth: 0, mutations: 0 }
const INTROSPECTION_ROOTS = new Set(['__schema', '__type'])

class Walk {
  readonly #o: AnalysisOptions
  readonly #fragments = new Map<string, FragmentDefinitionNode>()
  readonly #done = new Map<string, Part>()
  readonly #open = new Set<string>()
  readonly #mutation: GraphQLNamedType | null | undefined

  constructor (o: AnalysisOptions, document: DocumentNode) {
    this.#o = o
    this.#mutation = o.schema.getMutationType()
    for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) this.#fragments.set(d.name.value, d)
  }

  selection (set: SelectionSetNode | undefined, type: GraphQLNamedType | null | undefined): Part {
    const out = { ...EMPTY }
    for (const sel of set?.selections ?? []) {
      let p: Part
      if (sel.kind === Kind.FIELD) p = this.#field(sel, type)
      else if (sel.kind === Kind.INLINE_FRAGMENT) {
        p = this.selection(
          sel.selectionSet,
          sel.typeCondition === undefined ? type : this.#o.schema.getType(sel.typeCondition.name.value)
        )
      } else p = this.#spread(sel.name.value)
      out.a = cap(out.a + p.a)
      out.b = cap(out.b + p.b)
      out.depth = Math.max(out.depth, p.depth)
      out.mutations = cap(out.mutations + p.mutations)
    }
    return out
  }

  /** A fragment's part, computed the first time it is spread; a cycle (refused by validation) counts nothing. */
  #spread (name: string): Part {
    const known = this.#done.get(name)
    if (known !== undefined) return known
    const fragment = this.#fragments.get(name)
    if (fragment === undefined || this.#open.has(name)) return EMPTY
    this.#open.add(name)
    const part = this.selection(fragment.selectionSet, this.#o.schema.getType(fragment.typeCondition.name.value))
    this.#open.delete(name)
    this.#done.set(name, part)
    return part
  }

  #field (node: FieldNode, type: GraphQLNamedType | null | undefined): Part {
    const name = node.name.value
    const mutations = type != null && type === this.#mutation ? 1 : 0
    if (name === '__typename') return { a: 1, b: 0, depth: 1, mutations: 0 }
    if (!isObjectType(type) && !isInterfaceType(type)) return EMPTY
    const def: GraphQLField<unknown, unknown> | undefined =
      name === '__schema' ? SchemaMetaFieldDef : name === '__type' ? TypeMetaFieldDef : type.getFields()[name]
    if (def === undefined) return EMPTY
    const hint = def.extensions?.svcCost as CostHint | undefined
    const below = this.selection(node.selectionSet, getNamedType(def.type))
    const depth = INTROSPECTION_ROOTS.has(name) ? 0 : 1 + below.depth
    // One belongsTo/hasOne target may stand for many parents (many contacts name one company):
    // what its selection costs per batch (`b`, a hasMany list below it) is handed out again for
    // each of them, so it counts per parent.
    const shared = hint?.kind === 'related' && hint.relation !== 'hasMany'
    const child = shared ? { a: cap(below.a + below.b), b: 0 } : below
    // How many items the field's selection is resolved for, per parent (`per`) or per batch (`fixed`).
    let per = 1
    let fixed = 0
    let flat = 0
    if (hint?.kind === 'page') per = pageRecords(this.#number(node, hint.arg), this.#o.pageSize)
    else if (hint?.kind === 'batch') per = Math.min(Math.max(this.#length(node, hint.arg), 1), MAX_BULK_RECORDS)
    else if (hint?.kind === 'related' && hint.relation === 'hasMany') {
      per = 0
      fixed = MAX_RELATED
    } else if (hint?.kind === 'flat') flat = hint.price
    else if (isListType(getNullableType(def.type)) && node.selectionSet !== undefined) {
      const total = this.#o.introspection.get(`${type.name}.${name}`)
      if (total !== undefined) {
        per = 0
        fixed = total
      }
    }
    return {
      a: cap(1 + flat + child.a * per),
      b: cap(child.a * fixed + child.b),
      depth,
      mutations
    }
  }

  /** An integer argument: a literal, a variable's value (unknown before validation: 1), or undefined when absent. */
  #number (node: FieldNode, arg: string): number | undefined {
    const v = node.arguments?.find((a) => a.name.value === arg)?.value
    if (v === undefined || v.kind === Kind.NULL) return undefined
    if (v.kind === Kind.INT) return Number(v.value)
    if (v.kind === Kind.VARIABLE) {
      if (this.#o.variables === null) return 1
      const value = this.#o.variables[v.name.value]
      return typeof value === 'number' ? value : undefined
    }
    return undefined
  }

  /** The length of a list argument (a single value is a list of one; unknown before validation: 1). */
  #length (node: FieldNode, arg: string): number {
    const v = node.arguments?.find((a) => a.name.value === arg)?.value
    if (v === undefined) return 1
    if (v.kind === Kind.LIST) return v.values.length
    if (v.kind === Kind.VARIABLE) {
      const value = this.#o.variables?.[v.name.value]
      return Array.isArray(value) ? value.length : 1
    }
    return 1
  }
}

/** Prices every operation of `document` (each root selection resolved once: `P = 1`). */
export function analyse (document: DocumentNode, o: AnalysisOptions): Analysis {
  const walk = new Walk(o, document)
  const out: Analysis = { cost: 0, depth: 0, mutations: 0 }
  for (const d of document.definitions) {
    if (d.kind !== Kind.OPERATION_DEFINITION) continue
    const root =
      d.operation === 'mutation'
        ? o.schema.getMutationType()
        : d.operation === 'subscription'
          ? o.schema.getSubscriptionType()
          : o.schema.getQueryType()
    const part = walk.selection(d.selectionSet, root)
    out.cost = Math.max(out.cost, cap(part.a + part.b))
    out.depth = Math.max(out.depth, part.depth)
    out.mutations = Math.max(out.mutations, part.mutations)
  }
  return out
}
