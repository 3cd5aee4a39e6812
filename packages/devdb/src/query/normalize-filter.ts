/**
 * Rewrites a validated filter into the form handed to mingo: `$comment` removed and
 * `{ $regex, $options }` compiled here, because MongoDB's `x` (extended) option has no
 * JavaScript flag and mingo would reject it; every regex is made a linear-time one (RE2).
 */
import type { Document } from 'bson'
import { CommandError } from '../errors.js'
import { isPlainDoc } from '../bson/paths.js'
import { linear } from './linear-regex.js'

const VALID_OPTIONS = /^[imsxu]*$/

/** Builds a RegExp from a MongoDB pattern and options (`x` strips white space and `#` comments). */
export function mongoRegex (pattern: string, options: string): RegExp {
  if (!VALID_OPTIONS.test(options)) {
    const bad = [...options].find((c) => !'imsxu'.includes(c)) ?? options
    throw new CommandError(51108, 'Location51108', `invalid flag in regex options: ${bad}`)
  }
  let src = pattern
  if (options.includes('x')) {
    src = src
      .replace(/\\#/g, '\u0000')
      .replace(/#[^\n]*/g, '')
      .replace(/(?<!\\)\s+/g, '')
      .replaceAll('\u0000', '\\#')
  }
  let re: RegExp
  try {
    re = new RegExp(src, [...new Set(options.replace(/[xu]/g, ''))].join(''))
  } catch (e) {
    throw new CommandError(
      51091,
      'Location51091',
      `Regular expression is invalid: ${e instanceof Error ? e.message : String(e)}`
    )
  }
  return linear(re)
}

/** Regex values (`{ a: /x/ }`, `$in: [/x/]`, `$not: /x/`) are matched in linear time too. */
function linearValue (v: unknown): unknown {
  if (v instanceof RegExp) return linear(v)
  if (Array.isArray(v) && v.some((x) => x instanceof RegExp)) return v.map((x) => (x instanceof RegExp ? linear(x) : x))
  return v
}

function normalizeOperand (v: unknown): unknown {
  if (!isPlainDoc(v)) return linearValue(v)
  const keys = Object.keys(v)
  if (keys.length === 0 || !keys[0].startsWith('$')) return v
  const out: Document = {}
  for (const k of keys) {
    if (k === '$options') continue
    if (k === '$regex') {
      const r = v.$regex
      const opts = typeof v.$options === 'string' ? v.$options : undefined
      if (r instanceof RegExp) out.$regex = opts === undefined ? r : mongoRegex(r.source, opts)
      else out.$regex = mongoRegex(String(r), opts ?? '')
      continue
    }
    if (k === '$not') {
      out.$not = normalizeOperand(v.$not)
      continue
    }
    if (k === '$elemMatch' && isPlainDoc(v.$elemMatch)) {
      const em = v.$elemMatch
      const opForm =
        Object.keys(em).length > 0 &&
        Object.keys(em)[0].startsWith('$') &&
        !['$and', '$or', '$nor', '$expr'].includes(Object.keys(em)[0])
      out.$elemMatch = opForm ? normalizeOperand(em) : normalizeFilter(em)
      continue
    }
    out[k] = linearValue(v[k])
  }
  return out
}

export function normalizeFilter (filter: Document): Document {
  const out: Document = {}
  for (const [k, v] of Object.entries(filter)) {
    if (k === '$comment') continue
    if ((k === '$and' || k === '$or' || k === '$nor') && Array.isArray(v)) {
      out[k] = v.map((f) => (isPlainDoc(f) ? normalizeFilter(f) : f))
      continue
    }
    out[k] = k.startsWith('$') ? v : normalizeOperand(v)
  }
  return out
}
