import {
  GraphQLEnumType,
  GraphQLID,
  GraphQLInputObjectType,
  GraphQLList,
  GraphQLNonNull,
  GraphQLString,
  type GraphQLInputFieldConfigMap,
  type GraphQLInputType,
  type GraphQLScalarType
} from 'graphql'
import { ValidationError } from '@svc/core'
import { FILTER_OPERATORS, filterableFields, type FilterableField, type ResourceModel } from '@svc/core/kit'
import { SCALARS } from './inputs.js'
import { capitalize, isGraphqlName, typeName } from './names.js'

/**
 * Core's filter vocabulary (`filterableFields`) as GraphQL syntax: a dotted path becomes nested
 * input objects (`address: { city: "Paris" }` is `address.city`), operators drop their `$`. The
 * rules (which keys, which operators, casting, field ACL) stay core's.
 */
interface FilterNode {
  scalar?: GraphQLScalarType
  children: Map<string, FilterNode>
}

const SEPARATOR = '__'
const trees = new WeakMap<ResourceModel, FilterNode>()

function scalarOf (f: FilterableField): GraphQLScalarType {
  return f.kind === 'objectId' ? GraphQLID : (SCALARS[f.kind] ?? GraphQLString)
}

/** The filterable paths GraphQL can name (each segment a GraphQL name), as a tree of segments. */
function treeOf (model: ResourceModel): FilterNode {
  let root = trees.get(model)
  if (root !== undefined) return root
  root = { children: new Map() }
  for (const f of filterableFields(model)) {
    const segments = f.path.split('.')
    if (!segments.every(isGraphqlName) || segments[0] === '_operators') continue
    let node = root
    for (const s of segments) {
      let next = node.children.get(s)
      if (next === undefined) node.children.set(s, (next = { children: new Map() }))
      node = next
    }
    node.scalar = scalarOf(f)
  }
  trees.set(model, root)
  return root
}

const operatorTypes = new Map<GraphQLScalarType, GraphQLInputObjectType>()

/** `StringOperators`, `FloatOperators`, …: core's operators without `$` (`regex`/`options` on strings only). */
function operatorsOf (scalar: GraphQLScalarType): GraphQLInputObjectType {
  let t = operatorTypes.get(scalar)
  if (t !== undefined) return t
  const fields: GraphQLInputFieldConfigMap = {}
  for (const op of FILTER_OPERATORS) {
    const name = op.slice(1)
    if (op === '$in') fields[name] = { type: new GraphQLList(new GraphQLNonNull(scalar)) }
    else if (op === '$regex' || op === '$options') {
      if (scalar === GraphQLString) {
        fields[name] = {
          type: GraphQLString,
          description:
            op === '$regex' ? 'a regular expression (REST $regex rules)' : 'regex flags (REST $options rules)'
        }
      }
    } else fields[name] = { type: scalar }
  }
  t = new GraphQLInputObjectType({ name: `${scalar.name}Operators`, fields })
  operatorTypes.set(scalar, t)
  return t
}

/** One level of the filter: equality per leaf (or operators, `ops`), a nested input per group. */
function levelType (
  name: string,
  node: FilterNode,
  ops: boolean,
  extra: GraphQLInputFieldConfigMap = {}
): GraphQLInputObjectType {
  return new GraphQLInputObjectType({
    name,
    fields: () => {
      const fields: GraphQLInputFieldConfigMap = {}
      for (const [seg, child] of node.children) {
        const stem = `${name.slice(0, ops ? -'FilterOperators'.length : -'Filter'.length)}${capitalize(seg)}`
        const type: GraphQLInputType =
          child.scalar !== undefined
            ? ops
              ? operatorsOf(child.scalar)
              : child.scalar
            : levelType(`${stem}${ops ? 'FilterOperators' : 'Filter'}`, child, ops)
        fields[seg] = { type }
      }
      return { ...fields, ...extra }
    }
  })
}

/** `<Type>Filter`: equality per field (nested objects as nested inputs), and `_operators` per field. */
export function filterInput (model: ResourceModel): GraphQLInputObjectType {
  const name = typeName(model)
  const root = treeOf(model)
  const operators = levelType(`${name}FilterOperators`, root, true)
  const t = levelType(`${name}Filter`, root, false, { _operators: { type: operators } })
  return Object.assign(t, { description: `Conditions on ${model.path} records, all of which must hold` })
}

/** `<Type>Sort`: `<field>_ASC` / `<field>_DESC` for every filterable path (`address__city_ASC`). */
export function sortEnum (model: ResourceModel): GraphQLEnumType {
  const values: Record<string, { value: string }> = {}
  const walk = (node: FilterNode, path: string[]): void => {
    for (const [seg, child] of node.children) {
      const p = [...path, seg]
      if (child.scalar !== undefined) {
        values[`${p.join(SEPARATOR)}_ASC`] = { value: `${p.join('.')}:asc` }
        values[`${p.join(SEPARATOR)}_DESC`] = { value: `${p.join('.')}:desc` }
      }
      walk(child, p)
    }
  }
  walk(treeOf(model), [])
  return new GraphQLEnumType({ name: `${typeName(model)}Sort`, values })
}

function isObject (v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v)
}

function flatten (
  node: FilterNode,
  value: Record<string, unknown>,
  prefix: string,
  visit: (path: string, v: unknown) => void
): void {
  for (const [seg, v] of Object.entries(value)) {
    const child = node.children.get(seg)
    if (child === undefined || v === undefined || v === null) continue
    const path = prefix === '' ? seg : `${prefix}.${seg}`
    if (child.scalar !== undefined) visit(path, v)
    else if (isObject(v)) flatten(child, v, path, visit)
  }
}

/**
 * A `<Type>Filter` argument as core's filter (`{ 'a.b': value | { $op: value } }`); core then
 * applies REST's filter rules. A field given both an equality and operators is refused: say it
 * once, `_operators: { f: { in: [...] } }`.
 */
export function toCoreFilter (
  model: ResourceModel,
  arg: Record<string, unknown> | null | undefined
): Record<string, unknown> | undefined {
  if (arg == null) return undefined
  const root = treeOf(model)
  const { _operators: ops, ...eq } = arg
  const out: Record<string, unknown> = {}
  flatten(root, eq, '', (path, v) => {
    out[path] = v
  })
  if (isObject(ops)) {
    flatten(root, ops, '', (path, o) => {
      if (!isObject(o)) return
      if (Object.hasOwn(out, path)) {
        throw new ValidationError(`filter: '${path}' has both a value and _operators; use one`, { field: path })
      }
      const mongo: Record<string, unknown> = {}
      for (const [op, v] of Object.entries(o)) if (v !== undefined && v !== null) mongo[`$${op}`] = v
      if (Object.keys(mongo).length > 0) out[path] = mongo
    })
  }
  return out
}
