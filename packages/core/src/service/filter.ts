import type { Document, Sort } from 'mongodb'
import { ValidationError } from '../errors.js'
import type { ResourceModel } from '../schema/model.js'
import { castScalar } from '../values/convert.js'
import { FILTER_OPERATORS, MAX_IN_VALUES, MAX_PAGE_SIZE, REGEX_OPTIONS } from '../values/limits.js'
import { regexProblem } from '../values/regex.js'
import { resolveField, type ResolvedField } from '../values/resolve-field.js'

const OPERATORS = new Set<string>(FILTER_OPERATORS)
const OPTIONS = new RegExp(`^[${REGEX_OPTIONS}]*$`)

type Target = ResolvedField

function refuse (field: string, message: string): never {
  throw new ValidationError(message, { field })
}

function cast (key: string, t: Target, v: unknown, exact = true): unknown {
  const c = castScalar(t.kind, v)
  if (c === undefined) refuse(key, `value for '${key}' is not a valid ${t.kind === 'objectId' ? 'id' : t.kind}`)
  const out = t.lowercase && typeof c === 'string' ? c.toLowerCase() : c
  // An exact match on a value the enum can never hold is a typo, not an empty result.
  if (exact && t.enum !== undefined && !t.enum.includes(out)) {
    refuse(key, `'${String(out)}' is not one of ${key}'s values: ${t.enum.join(', ')}`)
  }
  return out
}

function operators (key: string, t: Target, ops: Record<string, unknown>): Document {
  const out: Document = {}
  const names = Object.keys(ops)
  if (names.length === 0) refuse(key, `empty operator object for '${key}'`)
  for (const op of names) {
    if (!OPERATORS.has(op)) refuse(key, `operator '${op}' is not allowed (allowed: ${[...OPERATORS].join(' ')})`)
    const v = ops[op]
    if (op === '$in') {
      if (!Array.isArray(v) || v.length > MAX_IN_VALUES) {
        refuse(key, `$in on '${key}' needs an array (at most ${MAX_IN_VALUES} values)`)
      }
      out.$in = v.map((x) => cast(key, t, x))
    } else if (op === '$regex') {
      if (t.kind !== 'string') refuse(key, `$regex applies to string fields only ('${key}')`)
      const problem = regexProblem(v)
      if (problem !== null) refuse(key, `$regex on '${key}' ${problem}`)
      out.$regex = v
    } else if (op === '$options') {
      if (ops.$regex === undefined) refuse(key, '$options needs $regex')
      if (typeof v !== 'string' || !OPTIONS.test(v)) {
        refuse(key, `$options may only contain ${[...REGEX_OPTIONS].join(', ')}`)
      }
      out.$options = v
    } else {
      out[op] = cast(key, t, v, op === '$ne')
    }
  }
  return out
}

/**
 * Turns a caller's filter into a MongoDB filter: keys must be declared fields, values are cast
 * to the field type, operators are limited to the allow-list. Query-string values that are
 * JSON objects (`{"$gt":5}`) are decoded here so REST and other surfaces share one path.
 */
export function buildFilter (model: ResourceModel, raw: Record<string, unknown> | undefined): Document {
  const filter: Document = {}
  if (raw == null) return filter
  if (typeof raw !== 'object' || Array.isArray(raw)) refuse('filter', 'filter must be an object')
  for (const [key, rawValue] of Object.entries(raw)) {
    const t = resolveField(model, key)
    let v = rawValue
    if (typeof v === 'string' && v.trimStart().startsWith('{')) {
      try {
        v = JSON.parse(v)
      } catch {
        refuse(key, `value for '${key}' looks like JSON but does not parse`)
      }
    }
    if (v !== null && typeof v === 'object' && !(v instanceof Date)) {
      if (Array.isArray(v)) refuse(key, `array value for '${key}': use {"$in": [...]}`)
      filter[key] = operators(key, t, v as Record<string, unknown>)
    } else {
      filter[key] = cast(key, t, v)
    }
  }
  return filter
}

/** `a:asc,b:desc` (or an array of those) → ordered sort, always ending in `_id` so paging is stable. */
export function buildSort (model: ResourceModel, raw: unknown): Sort {
  // A Map: a declared field named `constructor` must not collide with Object.prototype.
  const sort = new Map<string, 1 | -1>()
  const text = Array.isArray(raw) ? raw.join(',') : raw
  if (text === undefined || text === null || text === '') {
    sort.set('createdAt', -1)
  } else {
    if (typeof text !== 'string') refuse('__sort', '__sort must be a string such as createdAt:desc')
    for (const part of text.split(',')) {
      const [field, dir = 'asc', ...rest] = part.trim().split(':')
      if (field === '' || rest.length > 0) refuse('__sort', `malformed sort '${part}'`)
      resolveField(model, field)
      if (dir !== 'asc' && dir !== 'desc') refuse('__sort', `sort direction for '${field}' must be asc or desc`)
      if (sort.has(field)) refuse('__sort', `'${field}' appears twice in __sort`)
      sort.set(field, dir === 'asc' ? 1 : -1)
    }
  }
  if (!sort.has('_id')) sort.set('_id', sort.values().next().value ?? -1)
  return Object.fromEntries(sort)
}

export interface Paging {
  page: number
  perPage: number
  skip: number
}

export function buildPaging (page: unknown, perPage: unknown, defaultPerPage: number): Paging {
  const p = page === undefined ? 1 : Number(page)
  const pp = perPage === undefined ? defaultPerPage : Number(perPage)
  if (!Number.isInteger(p) || p < 1) refuse('__page', '__page must be an integer >= 1')
  if (!Number.isInteger(pp) || pp < 1) refuse('__perPage', '__perPage must be an integer >= 1')
  const capped = Math.min(pp, MAX_PAGE_SIZE)
  if ((p - 1) * capped > 1e9) refuse('__page', '__page is too large')
  return { page: p, perPage: capped, skip: (p - 1) * capped }
}
