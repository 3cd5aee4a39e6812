/**
 * `$regexMatch`, `$regexFind` and `$regexFindAll` in linear time (RE2, see linear-regex.ts), like
 * the query's `$regex`: mingo's versions run V8's backtracking engine, where one pattern such as
 * `^(a+)+$` could hold the whole server. Positions are in code points, as mongod reports them.
 */
import { evalExpr } from 'mingo/core'
import type { Options } from 'mingo/types'
import { isPlainDoc } from '../bson/paths.js'
import { LinearRegExp, linear } from './linear-regex.js'
import { mongoRegex } from './normalize-filter.js'
import { fail, typeOf, type ExprOp } from './operator-kit.js'

/** The input and compiled pattern of a regex expression; null when the input or the pattern is null or missing. */
function regexArgs (
  name: string,
  obj: unknown,
  expr: unknown,
  options: Options
): { input: string; re: LinearRegExp } | null {
  if (!isPlainDoc(expr)) return fail(51103, `${name} expects an object of named arguments but found: ${typeOf(expr)}`)
  for (const k of Object.keys(expr)) {
    if (!['input', 'regex', 'options'].includes(k)) fail(31024, `${name} found an unknown argument: ${k}`)
  }
  const input = evalExpr(obj, expr.input, options)
  const regex = evalExpr(obj, expr.regex, options)
  const flags = expr.options === undefined ? undefined : evalExpr(obj, expr.options, options)
  if (flags !== undefined && flags !== null && typeof flags !== 'string') {
    fail(51106, `${name} needs 'options' to be of type string`)
  }
  if (input === null || input === undefined || regex === null || regex === undefined) return null
  if (typeof input !== 'string') fail(51104, `${name} needs 'input' to be of type string`)
  let re: RegExp
  if (regex instanceof RegExp) {
    if (regex.flags !== '' && typeof flags === 'string' && flags !== '') {
      fail(51075, `${name}: found regex option(s) specified in both 'regex' and 'option' fields`)
    }
    re = mongoRegex(regex.source, typeof flags === 'string' && flags !== '' ? flags : regex.flags)
  } else if (typeof regex === 'string') {
    if (regex.includes('\u0000')) fail(51109, `${name}: regular expression cannot contain an embedded null byte`)
    re = mongoRegex(regex, typeof flags === 'string' ? flags : '')
  } else return fail(51105, `${name} needs 'regex' to be of type string or regex`)
  return { input: input as string, re: linear(re) as LinearRegExp }
}

const codePoints = (s: string, end: number): number => [...s.slice(0, end)].length

function found (
  input: string,
  m: { index: number; groups: Array<string | null> }
): { match: string; idx: number; captures: Array<string | null> } {
  return { match: m.groups[0] ?? '', idx: codePoints(input, m.index), captures: m.groups.slice(1) }
}

export const regexExpressions: Record<string, ExprOp> = {
  $regexMatch: (obj, expr, options) => {
    const a = regexArgs('$regexMatch', obj, expr, options)
    return a !== null && a.re.test(a.input)
  },
  $regexFind: (obj, expr, options) => {
    const a = regexArgs('$regexFind', obj, expr, options)
    if (a === null) return null
    const first = a.re.matchesIn(a.input).next()
    return first.done === true ? null : found(a.input, first.value)
  },
  $regexFindAll: (obj, expr, options) => {
    const a = regexArgs('$regexFindAll', obj, expr, options)
    if (a === null) return []
    return [...a.re.matchesIn(a.input)].map((m) => found(a.input, m))
  }
}
