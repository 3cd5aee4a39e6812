/**
 * MongoDB sort: BSON order per key; an array field sorts by its smallest element ascending and
 * its largest descending; an empty array sorts before null; missing sorts as null.
 */
import type { Document } from 'bson'
import { CommandError, badValue } from '../errors.js'
import { compareValues, isNumeric, toNumber, type StringCompare } from '../bson/bson-order.js'
import { isPlainDoc, valuesAtPath } from '../bson/paths.js'

export interface SortKey {
  path: string
  dir: 1 | -1
  meta?: 'textScore' | 'natural'
}
export type DocComparator = (a: Document, b: Document) => number

const EMPTY_ARRAY = Symbol('emptyArray')

export function parseSort (spec: unknown): SortKey[] {
  if (spec === undefined || spec === null) return []
  if (!isPlainDoc(spec)) throw badValue('sort must be an object')
  const keys: SortKey[] = []
  for (const [path, v] of Object.entries(spec)) {
    if (path === '$natural') {
      if (!isNumeric(v) || (toNumber(v) !== 1 && toNumber(v) !== -1)) {
        throw badValue('$natural sort cannot be combined with other sort keys')
      }
      keys.push({ path, dir: toNumber(v) as 1 | -1, meta: 'natural' })
      continue
    }
    if (isPlainDoc(v)) {
      if (v.$meta === 'textScore') {
        keys.push({ path, dir: -1, meta: 'textScore' })
        continue
      }
      throw badValue(`Illegal key in $sort specification: ${path}: ${JSON.stringify(v)}`)
    }
    if (!isNumeric(v) || (toNumber(v) !== 1 && toNumber(v) !== -1)) {
      throw new CommandError(
        15975,
        'Location15975',
        '$sort key ordering must be 1 (for ascending) or -1 (for descending)'
      )
    }
    if (path === '' || path.startsWith('$')) throw badValue("FieldPath field names may not start with '$'.")
    keys.push({ path, dir: toNumber(v) as 1 | -1 })
  }
  return keys
}

export function sortValue (doc: Document, path: string, dir: 1 | -1, strCmp?: StringCompare): unknown {
  const raw = valuesAtPath(doc, path)
  const flat: unknown[] = []
  let sawEmpty = false
  for (const v of raw) {
    if (Array.isArray(v)) {
      if (v.length === 0) sawEmpty = true
      else flat.push(...v)
    } else flat.push(v)
  }
  if (flat.length === 0) return sawEmpty ? EMPTY_ARRAY : null
  let best = flat[0]
  for (let i = 1; i < flat.length; i++) {
    const c = compareValues(flat[i], best, strCmp)
    if ((dir === 1 && c < 0) || (dir === -1 && c > 0)) best = flat[i]
  }
  if (sawEmpty && dir === 1) return EMPTY_ARRAY
  return best
}

export function cmpSortValues (a: unknown, b: unknown, strCmp?: StringCompare): number {
  if (a === EMPTY_ARRAY || b === EMPTY_ARRAY) return a === b ? 0 : a === EMPTY_ARRAY ? -1 : 1
  return compareValues(a, b, strCmp)
}

/** Comparator over documents; `score` supplies $meta textScore values. Stable sort keeps natural order for ties. */
export function makeComparator (
  keys: SortKey[],
  score?: (d: Document) => number,
  strCmp?: StringCompare
): DocComparator {
  return (a, b) => {
    for (const k of keys) {
      let c: number
      if (k.meta === 'textScore') c = (score?.(b) ?? 0) - (score?.(a) ?? 0)
      else c = cmpSortValues(sortValue(a, k.path, k.dir, strCmp), sortValue(b, k.path, k.dir, strCmp), strCmp) * k.dir
      if (c !== 0) return c
    }
    return 0
  }
}

/** Sorts with precomputed keys (decorate-sort-undecorate) — sort keys are costly to extract. */
export function sortDocs (
  docs: Document[],
  keys: SortKey[],
  score?: (d: Document) => number,
  strCmp?: StringCompare
): Document[] {
  if (keys.length === 0) return docs
  if (keys.some((k) => k.meta !== undefined)) return docs.slice().sort(makeComparator(keys, score, strCmp))
  const decorated = docs.map((d, i) => ({ d, i, v: keys.map((k) => sortValue(d, k.path, k.dir, strCmp)) }))
  decorated.sort((x, y) => {
    for (let j = 0; j < keys.length; j++) {
      const c = cmpSortValues(x.v[j], y.v[j], strCmp) * keys[j].dir
      if (c !== 0) return c
    }
    return x.i - y.i
  })
  return decorated.map((x) => x.d)
}
