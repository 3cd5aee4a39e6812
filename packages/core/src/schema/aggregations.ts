import type { Document } from 'mongodb'
import { castScalar } from '../values/convert.js'
import { regexProblem } from '../values/regex.js'
import { resolveField, type FieldLookup } from '../values/resolve-field.js'
import { isPlainObject } from '../values/plain-object.js'
import { SchemaError } from './schema-error.js'

/** Stages that write, read other collections or the server's state: any of them could escape the tenant. */
const FORBIDDEN_STAGES = new Set([
  '$out',
  '$merge',
  '$unionWith',
  '$lookup',
  '$graphLookup',
  '$documents',
  '$currentOp',
  '$listSessions',
  '$listLocalSessions',
  '$listSampledQueries',
  '$listSearchIndexes',
  '$collStats',
  '$indexStats',
  '$planCacheStats',
  '$changeStream',
  '$shardedDataDistribution',
  '$search',
  '$searchMeta',
  '$vectorSearch',
  '$geoNear'
])
/** Server-side JavaScript, refused at any depth. */
const FORBIDDEN_OPERATORS = new Set(['$function', '$accumulator', '$where'])
const TEMPLATE_OPERATORS = new Set(['$eq', '$ne', '$gt', '$gte', '$lt', '$lte', '$in', '$nin', '$regex', '$options'])
const PARAM_TYPES: Record<string, ParamKind> = { String: 'string', Number: 'number', Boolean: 'boolean', Date: 'date' }
const CTOR_TYPES = new Map<unknown, ParamKind>([
  [String, 'string'],
  [Number, 'number'],
  [Boolean, 'boolean'],
  [Date, 'date']
])
const NAME_RE = /^[A-Za-z_][A-Za-z0-9_]*$/
const PLACEHOLDER_RE = /^\$([A-Za-z_][A-Za-z0-9_]*)$/

export type ParamKind = 'string' | 'number' | 'boolean' | 'date'

export interface AggregationParam {
  name: string
  kind: ParamKind
  /** As the manifest writes it: String, Number, Boolean, date. */
  typeName: string
  required: boolean
  /** The param's `match` template with the cast value substituted, as a plain value (never parsed). */
  match: (value: unknown) => Document
}

export interface AggregationModel {
  name: string
  description?: string
  pipeline: Document[]
  params: AggregationParam[]
  ttlSeconds?: number
  unsafe: boolean
}

/** Refuses stages and operators that could write or read outside the tenant's rows, at any depth. */
function scan (source: string, key: string, v: unknown, depth = 0): void {
  if (depth > 64) throw new SchemaError(source, key, 'is nested too deeply')
  if (Array.isArray(v)) {
    v.forEach((x) => scan(source, key, x, depth + 1))
    return
  }
  if (!isPlainObject(v)) return
  for (const [k, x] of Object.entries(v)) {
    if (FORBIDDEN_STAGES.has(k)) {
      throw new SchemaError(source, key, `stage ${k} is not allowed (it could write or read outside the tenant)`)
    }
    if (FORBIDDEN_OPERATORS.has(k)) {
      throw new SchemaError(source, key, `operator ${k} (server-side JavaScript) is not allowed`)
    }
    scan(source, key, x, depth + 1)
  }
}

/**
 * Compiles one param's `match` template. Keys must be declared fields (or `$and`/`$or` of
 * templates), operators come from a small allow-list, and the only placeholder is `$<name>`:
 * at run time the cast value is put in its place as a value, so a string can never become
 * an operator or a field path.
 */
function template (
  source: string,
  key: string,
  model: FieldLookup,
  param: string,
  raw: unknown
): (v: unknown) => Document {
  if (!isPlainObject(raw) || Object.keys(raw).length === 0) {
    throw new SchemaError(source, key, 'must be a filter object referencing the param as "$' + param + '"')
  }
  let referenced = false
  // A `$regex` operand is a pattern: checked like a caller's filter pattern, never lowercased.
  const value = (at: string, field: string, x: unknown, op?: string): ((v: unknown) => unknown) => {
    const regex = op === '$regex'
    if (typeof x === 'string' && x.startsWith('$')) {
      const m = PLACEHOLDER_RE.exec(x)
      if (m == null || m[1] !== param) {
        throw new SchemaError(source, at, `'${x}' is not this param's placeholder ("$${param}")`)
      }
      referenced = true
      const t = resolveField(model, field)
      return (v) => {
        const c = castScalar(regex ? 'string' : t.kind, v)
        if (c === undefined) throw new TypeError(`'${param}' cannot be used as ${field}`)
        if (regex) {
          const problem = regexProblem(c)
          if (problem !== null) throw new TypeError(`'${param}' is used as a pattern and ${problem}`)
          return c
        }
        return t.lowercase && typeof c === 'string' ? c.toLowerCase() : c
      }
    }
    if (x !== null && typeof x === 'object' && !(x instanceof Date)) {
      throw new SchemaError(source, at, 'template values are the placeholder or literals')
    }
    const problem = regex ? regexProblem(x) : null
    if (problem !== null) throw new SchemaError(source, at, `pattern ${problem}`)
    return () => x
  }
  const node = (at: string, obj: Record<string, unknown>, depth: number): ((v: unknown) => Document) => {
    const parts: Array<[string, (v: unknown) => unknown]> = []
    for (const [k, x] of Object.entries(obj)) {
      if (k === '$and' || k === '$or') {
        if (!Array.isArray(x) || x.length === 0 || depth > 4) {
          throw new SchemaError(source, `${at}.${k}`, 'must be a non-empty array of templates')
        }
        const subs = x.map((s, i) => {
          if (!isPlainObject(s)) throw new SchemaError(source, `${at}.${k}[${i}]`, 'must be an object')
          return node(`${at}.${k}[${i}]`, s, depth + 1)
        })
        parts.push([k, (v) => subs.map((f) => f(v))])
        continue
      }
      try {
        resolveField(model, k)
      } catch (err) {
        throw new SchemaError(source, `${at}.${k}`, (err as Error).message)
      }
      if (isPlainObject(x)) {
        const ops = Object.entries(x).map(([op, y]): [string, (v: unknown) => unknown] => {
          if (!TEMPLATE_OPERATORS.has(op)) {
            throw new SchemaError(
              source,
              `${at}.${k}.${op}`,
              `operator ${op} is not allowed in a param template (${[...TEMPLATE_OPERATORS].join(' ')})`
            )
          }
          if (op === '$in' || op === '$nin') {
            if (!Array.isArray(y)) throw new SchemaError(source, `${at}.${k}.${op}`, 'must be an array')
            const items = y.map((z) => value(`${at}.${k}.${op}`, k, z))
            return [op, (v) => items.map((f) => f(v))]
          }
          return [op, value(`${at}.${k}.${op}`, k, y, op)]
        })
        parts.push([k, (v) => Object.fromEntries(ops.map(([op, f]) => [op, f(v)]))])
      } else {
        parts.push([k, value(`${at}.${k}`, k, x)])
      }
    }
    return (v) => Object.fromEntries(parts.map(([k, f]) => [k, f(v)]))
  }
  const build = node(key, raw, 0)
  if (!referenced) throw new SchemaError(source, key, `never references its param ("$${param}")`)
  return build
}

function param (source: string, key: string, model: FieldLookup, raw: unknown): AggregationParam {
  if (!isPlainObject(raw) || typeof raw.name !== 'string' || !NAME_RE.test(raw.name)) {
    throw new SchemaError(source, `${key}.name`, 'is required: letters, digits and _')
  }
  const kind =
    CTOR_TYPES.get(raw.type) ??
    (typeof raw.type === 'string' ? PARAM_TYPES[raw.type[0].toUpperCase() + raw.type.slice(1)] : undefined)
  if (kind === undefined) throw new SchemaError(source, `${key}.type`, 'must be String, Number, Boolean or Date')
  if (raw.required !== undefined && typeof raw.required !== 'boolean') {
    throw new SchemaError(source, `${key}.required`, 'must be a boolean')
  }
  return {
    name: raw.name,
    kind,
    typeName: kind === 'date' ? 'date' : kind[0].toUpperCase() + kind.slice(1),
    required: raw.required === true,
    match: template(source, `${key}.match`, model, raw.name, raw.match)
  }
}

/** Validates and compiles a schema's `aggregations` at load; every mistake names the file and key. */
export function compileAggregations (source: string, raw: unknown, model: FieldLookup): AggregationModel[] {
  if (raw === undefined) return []
  if (!Array.isArray(raw)) throw new SchemaError(source, 'aggregations', 'must be an array')
  const names = new Set<string>()
  return raw.map((a, i) => {
    if (!isPlainObject(a) || typeof a.name !== 'string' || !/^[A-Za-z][A-Za-z0-9_-]*$/.test(a.name)) {
      throw new SchemaError(source, `aggregations[${i}].name`, 'is required: a URL segment')
    }
    if (names.has(a.name)) throw new SchemaError(source, `aggregations[${i}].name`, `'${a.name}' is declared twice`)
    names.add(a.name)
    const key = `aggregations.${a.name}`
    if (!Array.isArray(a.pipeline)) throw new SchemaError(source, `${key}.pipeline`, 'must be an array of stages')
    a.pipeline.forEach((stage, j) => {
      if (!isPlainObject(stage) || Object.keys(stage).length !== 1 || !Object.keys(stage)[0].startsWith('$')) {
        throw new SchemaError(source, `${key}.pipeline[${j}]`, 'must be one stage such as { $group: ... }')
      }
    })
    scan(source, `${key}.pipeline`, a.pipeline)
    if (a.description !== undefined && typeof a.description !== 'string') {
      throw new SchemaError(source, `${key}.description`, 'must be a string')
    }
    if (a.unsafe !== undefined && typeof a.unsafe !== 'boolean') {
      throw new SchemaError(source, `${key}.unsafe`, 'must be a boolean')
    }
    let ttlSeconds: number | undefined
    if (a.cache !== undefined) {
      if (!isPlainObject(a.cache) || typeof a.cache.ttlSeconds !== 'number' || !(a.cache.ttlSeconds > 0)) {
        throw new SchemaError(source, `${key}.cache.ttlSeconds`, 'must be a positive number of seconds')
      }
      ttlSeconds = a.cache.ttlSeconds
    }
    if (a.params !== undefined && !Array.isArray(a.params)) {
      throw new SchemaError(source, `${key}.params`, 'must be an array of { name, type, match }')
    }
    const params = (a.params ?? []).map((p, j) => param(source, `${key}.params[${j}]`, model, p))
    const dup = params.find((p, j) => params.findIndex((q) => q.name === p.name) !== j)
    if (dup !== undefined) throw new SchemaError(source, `${key}.params`, `'${dup.name}' is declared twice`)
    return {
      name: a.name,
      ...(a.description !== undefined ? { description: a.description } : {}),
      pipeline: a.pipeline as Document[],
      params,
      ...(ttlSeconds !== undefined ? { ttlSeconds } : {}),
      unsafe: a.unsafe === true
    }
  })
}
