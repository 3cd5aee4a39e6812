/**
 * Pipelines that only count what the query layer selects — the driver's countDocuments is
 * `[{ $match }, { $group: { _id: 1, n: { $sum: 1 } } }]`, and `{ $count: 'n' }` — need no
 * document fields. mongod answers them from index keys alone; so does devdb, through the count
 * plan (COUNT_SCAN when the index bounds capture the whole filter), then builds the one result.
 */
import type { Document } from 'bson'
import { isNumeric, toNumber } from '../bson/bson-order.js'
import { isPlainDoc } from '../bson/paths.js'
import { stageName } from './pipeline.js'

export type CountResult = (n: number) => Document[]

const isConstant = (v: unknown): boolean =>
  !(typeof v === 'string' && v.startsWith('$')) && !isPlainDoc(v) && !Array.isArray(v)

/** A function from the selected count to the pipeline's output, if the rest of the pipeline only counts. */
export function countOnlyPipeline (rest: Document[]): CountResult | undefined {
  if (rest.length !== 1) return undefined
  const name = stageName(rest[0])
  const arg = rest[0][name]
  if (name === '$count' && typeof arg === 'string') return (n) => (n > 0 ? [{ [arg]: n }] : [])
  if (name !== '$group' || !isPlainDoc(arg) || !isConstant(arg._id)) return undefined
  const sums: Array<[string, number]> = []
  for (const [field, acc] of Object.entries(arg)) {
    if (field === '_id') continue
    if (
      !isPlainDoc(acc) ||
      Object.keys(acc).length !== 1 ||
      !isNumeric(acc.$sum) ||
      !Number.isInteger(toNumber(acc.$sum))
    ) {
      return undefined
    }
    sums.push([field, toNumber(acc.$sum)])
  }
  return (n) => (n > 0 ? [{ _id: arg._id ?? null, ...Object.fromEntries(sums.map(([f, c]) => [f, n * c])) }] : [])
}
