/**
 * Positional update paths (`a.$.b`, `a.$[].b`, `a.$[id].b`) resolved to the concrete paths they
 * name in one document, so every operator can then be applied by path. The resolution is
 * mingo's own: a `$set` of a unique marker per positional path on a scratch copy, then the
 * markers are looked up — so `$`'s query match, array filters and collation behave exactly as
 * they did when mingo applied the operators itself.
 */
import type { Document } from 'bson'
import { update as mingoUpdate } from 'mingo/updater'
import type { Options } from 'mingo/types'
import { isPlainDoc } from '../../bson/paths.js'
import { cloneDoc } from './clone.js'

/** `$`, `$[]` and `$[id]` are positional; any other `$`-prefixed part is a field name (mongod 5.0+). */
export const isPositional = (path: string): boolean => path.split('.').some((p) => p === '$' || /^\$\[\w*\]$/.test(p))

class Marker {
  constructor (readonly index: number) {}
}

function collectMarkers (v: unknown, path: string, out: string[][]): void {
  if (v instanceof Marker) {
    out[v.index].push(path)
    return
  }
  const prefix = path === '' ? '' : path + '.'
  if (Array.isArray(v)) v.forEach((x, i) => collectMarkers(x, prefix + String(i), out))
  else if (isPlainDoc(v)) for (const k of Object.keys(v)) collectMarkers(v[k], prefix + k, out)
}

/**
 * `ops` with every positional path replaced by the concrete paths it names in `doc` (none: the
 * operator has nothing to do there). Throws mingo's errors (e.g. `$` without a query match).
 */
export function concretize (
  doc: Document,
  ops: Document,
  arrayFilters: Document[] | undefined,
  query: Document | undefined,
  queryOptions: Options
): Document {
  const positional: string[] = []
  for (const arg of Object.values(ops)) {
    for (const path of Object.keys(arg as Document)) if (isPositional(path)) positional.push(path)
  }
  if (positional.length === 0) return ops
  // One path at a time: mingo refuses two positional paths into the same array in one $set
  // ('a.$.x' and 'a.$.y' "would create a conflict at 'a'"), which mongod allows; real conflicts
  // were refused before (validate.ts).
  const found = positional.map((): string[] => [])
  positional.forEach((p, i) => {
    const scratch = cloneDoc(doc)
    mingoUpdate(scratch, { $set: { [p]: new Marker(i) } }, arrayFilters, query, { cloneMode: 'none', queryOptions })
    collectMarkers(scratch, '', found)
  })
  const concrete = new Map(positional.map((p, i) => [p, found[i]]))
  const out: Document = {}
  for (const [op, arg] of Object.entries(ops)) {
    const rewritten: Document = {}
    for (const [path, v] of Object.entries(arg as Document)) {
      for (const p of concrete.get(path) ?? [path]) rewritten[p] = v
    }
    if (Object.keys(rewritten).length > 0) out[op] = rewritten
  }
  return out
}
