import type { Document, Sort } from 'mongodb'
import { ValidationError } from '../errors.js'
import type { ResourceModel } from '../schema/model.js'
import { MAX_Q_LENGTH } from '../values/limits.js'
import { buildSort } from './filter.js'

const SCORE = { $meta: 'textScore' } as const

/** Dotted paths of the `searchable` String / [String] fields, nested ones included. */
export function searchablePaths (model: ResourceModel): string[] {
  const out: string[] = []
  for (const f of model.fieldsByPath.values()) {
    const leaf = f.kind === 'array' ? f.items! : f
    if (f.searchable && leaf.kind === 'string') out.push(f.path)
  }
  return out
}

/**
 * The `$text` clause for `q`, or undefined without one; `q` on a schema without searchable fields
 * is 400. So is `q` by a caller who cannot read every searchable field: a match on a hidden field
 * would tell them what it holds (the one text index cannot leave fields out per caller).
 */
export function textClause (
  model: ResourceModel,
  q: unknown,
  readable: Set<string> | null = null
): Document | undefined {
  if (q === undefined) return undefined
  const paths = searchablePaths(model)
  if (paths.length === 0) {
    throw new ValidationError(`text search (q) is not available on ${model.path}: no field is searchable`, {
      field: 'q'
    })
  }
  if (readable !== null && paths.some((p) => !readable.has(p.split('.')[0]))) {
    throw new ValidationError(`text search (q) on ${model.path} covers fields you cannot read`, { field: 'q' })
  }
  if (typeof q !== 'string') throw new ValidationError('q must be a string', { field: 'q' })
  const search = q.trim()
  if (search === '') throw new ValidationError('q must not be empty', { field: 'q' })
  if (search.length > MAX_Q_LENGTH) {
    throw new ValidationError(`q must be at most ${MAX_Q_LENGTH} characters`, { field: 'q' })
  }
  return { $search: search }
}

function isScoreToken (part: string): boolean {
  return part.trim() === 'score'
}

/**
 * Sort with text search. A bare `score` token means text score (descending); `score:asc|desc`
 * stays a field sort, so a schema with a field named `score` keeps it. With `q` and no
 * `__sort` the order is text score, then `_id` descending as the tiebreaker for stable paging.
 */
export function searchSort (model: ResourceModel, raw: unknown, searching: boolean): Sort {
  const text = Array.isArray(raw) ? raw.join(',') : raw
  const parts = typeof text === 'string' && text !== '' ? text.split(',') : []
  const wantsScore = parts.some(isScoreToken)
  if (!wantsScore) {
    if (searching && parts.length === 0) return { score: SCORE, _id: -1 }
    return buildSort(model, raw)
  }
  if (!searching) {
    // Without q there is no score; a schema field named `score` still sorts ascending as before.
    if (model.fieldsByPath.has('score')) return buildSort(model, raw)
    throw new ValidationError('__sort=score needs a text search (q)', { field: '__sort' })
  }
  const sort: Record<string, unknown> = {}
  for (const part of parts) {
    if (isScoreToken(part)) {
      if (Object.hasOwn(sort, 'score')) {
        throw new ValidationError("'score' appears twice in __sort", { field: '__sort' })
      }
      sort.score = SCORE
      continue
    }
    const one = buildSort(model, part) as Record<string, 1 | -1>
    const [field] = Object.keys(one)
    if (Object.hasOwn(sort, field)) throw new ValidationError(`'${field}' appears twice in __sort`, { field: '__sort' })
    sort[field] = one[field]
  }
  if (sort._id === undefined) sort._id = -1
  return sort as Sort
}
