/** Find projections: validated like mongod, evaluated by mingo; `{ $meta: 'textScore' }` handled here. */
import type { Document } from 'bson'
import { Query } from 'mingo/query'
import { CommandError, badValue } from '../errors.js'
import { isPlainDoc } from '../bson/paths.js'
import { isNumeric, toNumber } from '../bson/bson-order.js'
import { mingoOptions } from './options.js'
import { translateMingoError } from './mingo-errors.js'
import { normalizeFilter } from './normalize-filter.js'
import { projectionOrder } from './expression-fixes.js'
import { validateExpression } from './validate-expr.js'
import { copyContainers } from '../bson/doc-copy.js'
import { MISSING, getPath } from '../bson/paths.js'

export interface CompiledProjection {
  apply: (docs: Document[], filter: Document | undefined, score?: (d: Document) => number) => Document[]
  wantsTextScore: boolean
}

const PROJECTION_OPS = new Set(['$slice', '$elemMatch', '$meta'])

/** `variables`: the command's `let`, seen by the projection's expressions. */
export function compileProjection (spec: unknown, variables?: Document): CompiledProjection | undefined {
  if (spec === undefined || spec === null) return undefined
  if (!isPlainDoc(spec)) throw badValue('projection must be an object')
  if (Object.keys(spec).length === 0) return undefined
  const metaFields: string[] = []
  const rest: Document = {}
  let inclusion: boolean | undefined
  let positional = false
  const seen: string[] = []
  const arrayOps: Document = {}
  for (const [path, v] of Object.entries(spec)) {
    for (const p of seen) {
      if (p === path || p.startsWith(path + '.') || path.startsWith(p + '.')) {
        const [short, long] = p.length <= path.length ? [p, path] : [path, p]
        throw new CommandError(
          31250,
          'Location31250',
          `Path collision at ${long} remaining portion ${long.slice(short.length + 1)}`
        )
      }
    }
    seen.push(path)
    if (path.endsWith('.$')) positional = true
    if (isPlainDoc(v) && Object.keys(v).length === 1 && Object.keys(v)[0].startsWith('$')) {
      const op = Object.keys(v)[0]
      if (op === '$meta') {
        if (v.$meta !== 'textScore') throw badValue(`Unsupported $meta: ${String(v.$meta)}`)
        metaFields.push(path)
        continue
      }
      if (!PROJECTION_OPS.has(op)) {
        validateExpression(v, undefined)
        if (path !== '_id') inclusion = mark(inclusion, true, path)
      }
      // $slice and $elemMatch do not decide inclusion/exclusion (mongod): they join either kind.
      if (op === '$elemMatch' || op === '$slice') {
        arrayOps[path] = v
        continue
      }
      rest[path] = v
      continue
    }
    if (isPlainDoc(v)) {
      validateExpression(v)
      if (path !== '_id') inclusion = mark(inclusion, true, path)
      rest[path] = v
      continue
    }
    const on = typeof v === 'boolean' ? v : isNumeric(v) ? toNumber(v) !== 0 : true
    if (path !== '_id') inclusion = mark(inclusion, on, path)
    rest[path] = typeof v === 'boolean' || isNumeric(v) ? (on ? 1 : 0) : v
  }
  // Only $slice (no field flag) is an exclusion projection — every other field kept; a lone
  // $elemMatch is an inclusion one — `_id` and that field — as in mongod.
  const exclusion =
    inclusion === false || (inclusion === undefined && !Object.values(arrayOps).some((v) => '$elemMatch' in v))
  const hasOps = Object.keys(arrayOps).length > 0
  const mingoSpec = exclusion ? rest : { ...rest, ...arrayOps }
  const hasRest = Object.keys(mingoSpec).length > 0
  const project = (docs: Document[], filter: Document | undefined): Document[] => {
    // mingo's exclusion deletes fields from the objects it is given, nested ones included:
    // give it copies, never the stored documents.
    const input = exclusion ? docs.map(copyContainers) : docs
    let out = input
    if (hasRest) {
      out = new Query(
        positional && filter !== undefined ? normalizeFilter(filter) : {},
        mingoOptions(variables !== undefined ? { variables } : {})
      )
        .find(input, mingoSpec)
        .all() as Document[]
      out = out.map((d, i) => projectionOrder(docs[i], d, mingoSpec) as Document)
    }
    if (exclusion && hasOps) out = out.map((d, i) => applyArrayOps(docs[i], d, arrayOps))
    return out
  }
  return {
    wantsTextScore: metaFields.length > 0,
    apply (docs, filter, score) {
      let out = docs
      if (hasRest || hasOps) {
        try {
          out = project(docs, filter)
        } catch (e) {
          throw translateMingoError(e)
        }
      }
      if (metaFields.length > 0) {
        out = out.map((d, i) => {
          const copy = hasRest || hasOps ? d : { ...d }
          for (const f of metaFields) copy[f] = score?.(docs[i]) ?? 0
          return copy
        })
      }
      return out
    }
  }
}

/**
 * $slice / $elemMatch inside an exclusion projection: each array is computed from the stored
 * document and written into `out` (already a private copy); an $elemMatch without a match removes
 * the field, and its result goes after the other fields, as mongod places it.
 */
function applyArrayOps (doc: Document, out: Document, ops: Document): Document {
  for (const [path, op] of Object.entries(ops)) {
    const projected = new Query({}, mingoOptions()).find([doc], { _id: 0, [path]: op }).all()[0]
    const value = getPath(projected, path)
    const parts = path.split('.')
    let parent: Document | undefined = out
    for (const p of parts.slice(0, -1)) parent = isPlainDoc(parent?.[p]) ? (parent[p] as Document) : undefined
    if (parent === undefined) continue
    const leaf = parts[parts.length - 1]
    if ('$elemMatch' in op) delete parent[leaf]
    if (value !== MISSING) parent[leaf] = value
  }
  return out
}

function mark (cur: boolean | undefined, inclusion: boolean, path: string): boolean {
  if (cur === undefined) return inclusion
  if (cur !== inclusion) {
    throw inclusion
      ? new CommandError(31253, 'Location31253', `Cannot do inclusion on field ${path} in exclusion projection`)
      : new CommandError(31254, 'Location31254', `Cannot do exclusion on field ${path} in inclusion projection`)
  }
  return cur
}
