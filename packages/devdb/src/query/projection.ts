/** Find projections: validated like mongod, evaluated by mingo; `{ $meta: 'textScore' }` handled here. */
import type { Document } from 'bson'
import { Query } from 'mingo/query'
import { CommandError, badValue } from '../errors.js'
import { isPlainDoc } from '../engine/paths.js'
import { isNumeric, toNumber } from '../engine/bson-order.js'
import { mingoOptions } from './options.js'
import { translateMingoError } from './mingo-errors.js'
import { normalizeFilter } from './normalize-filter.js'
import { projectionOrder } from './expression-fixes.js'
import { validateExpression } from './validate-expr.js'

export interface CompiledProjection {
  apply: (docs: Document[], filter: Document | undefined, score?: (d: Document) => number) => Document[]
  wantsTextScore: boolean
}

const PROJECTION_OPS = new Set(['$slice', '$elemMatch', '$meta'])

export function compileProjection (spec: unknown): CompiledProjection | undefined {
  if (spec === undefined || spec === null) return undefined
  if (!isPlainDoc(spec)) throw badValue('projection must be an object')
  if (Object.keys(spec).length === 0) return undefined
  const metaFields: string[] = []
  const rest: Document = {}
  let inclusion: boolean | undefined
  let positional = false
  const seen: string[] = []
  for (const [path, v] of Object.entries(spec)) {
    for (const p of seen) {
      if (p === path || p.startsWith(path + '.') || path.startsWith(p + '.')) {
        const [short, long] = p.length <= path.length ? [p, path] : [path, p]
        throw new CommandError(31250, 'Location31250', `Path collision at ${long} remaining portion ${long.slice(short.length + 1)}`)
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
      if (op === '$elemMatch' || op === '$slice') { rest[path] = v; continue }
      rest[path] = v
      continue
    }
    if (isPlainDoc(v)) { validateExpression(v); if (path !== '_id') inclusion = mark(inclusion, true, path); rest[path] = v; continue }
    const on = typeof v === 'boolean' ? v : isNumeric(v) ? toNumber(v) !== 0 : true
    if (path !== '_id') inclusion = mark(inclusion, on, path)
    rest[path] = typeof v === 'boolean' || isNumeric(v) ? (on ? 1 : 0) : v
  }
  const hasRest = Object.keys(rest).length > 0
  return {
    wantsTextScore: metaFields.length > 0,
    apply (docs, filter, score) {
      let out = docs
      if (hasRest) {
        try {
          out = new Query(positional && filter !== undefined ? normalizeFilter(filter) : {}, mingoOptions()).find(docs, rest).all() as Document[]
          out = out.map((d, i) => projectionOrder(docs[i], d, rest) as Document)
        } catch (e) {
          throw translateMingoError(e)
        }
      }
      if (metaFields.length > 0) {
        out = out.map((d, i) => {
          const copy = hasRest ? d : { ...d }
          for (const f of metaFields) copy[f] = score?.(docs[i]) ?? 0
          return copy
        })
      }
      return out
    }
  }
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
