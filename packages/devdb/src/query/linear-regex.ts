/**
 * `$regex` evaluation in linear time. A backtracking engine (V8's, PCRE's) can take exponential
 * time on a pattern such as `^(a+)+$` and would hold the single-threaded server; RE2 (`re2js`)
 * matches in time linear in the input. Query regexes are compiled by both: V8 validates the
 * syntax and keeps RegExp's shape for mingo and the operators, RE2 does every match. Patterns RE2
 * cannot express — backreferences, lookahead and lookbehind — are refused rather than run with
 * backtracking.
 */
import { RE2JS } from 're2js'
import { CommandError, Codes } from '../errors.js'

export class LinearRegExp extends RegExp {
  private readonly re2: RE2JS

  constructor (source: string, flags: string) {
    super(source, flags)
    let re2: RE2JS
    try {
      re2 = RE2JS.compile(RE2JS.translateRegExp(source), re2Flags(flags))
    } catch (e) {
      throw new CommandError(
        Codes.NotImplemented,
        'NotImplemented',
        `devdb evaluates $regex in linear time (RE2) and cannot run /${source}/: ${e instanceof Error ? e.message : String(e)} (backreferences and lookaround are not supported)`
      )
    }
    this.re2 = re2
  }

  override test (s: string): boolean {
    return this.re2.test(s)
  }

  /** mingo's $regex only needs to know whether there is a match; the details are computed on a hit. */
  override exec (s: string): RegExpExecArray | null {
    if (!this.re2.test(s)) return null
    const m = this.re2.matcher(s)
    if (!m.find()) return null
    const groups: string[] = []
    for (let g = 0; g <= m.groupCount(); g++) groups.push(m.group(g) as string)
    return Object.assign(groups, { index: m.start(), input: s, groups: undefined }) as unknown as RegExpExecArray
  }

  /** Every successive match in `s` (an empty match advances by one, as RE2's `find`), with its groups (null when unset). */
  * matchesIn (s: string): Generator<{ index: number; groups: Array<string | null> }> {
    const m = this.re2.matcher(s)
    while (m.find()) {
      const groups: Array<string | null> = []
      for (let g = 1; g <= m.groupCount(); g++) groups.push(m.start(g) < 0 ? null : (m.group(g) as string))
      yield { index: m.start(), groups: [m.group(0) as string, ...groups] }
    }
  }
}

function re2Flags (flags: string): number {
  let f = 0
  if (flags.includes('i')) f |= RE2JS.CASE_INSENSITIVE
  if (flags.includes('m')) f |= RE2JS.MULTILINE
  if (flags.includes('s')) f |= RE2JS.DOTALL
  return f
}

const compiled = new WeakMap<RegExp, LinearRegExp>()

/** The linear-time form of a query regex (a RegExp decoded from BSON, built from `$regex`, or copied by mingo). */
export function linear (re: RegExp): RegExp {
  if (re instanceof LinearRegExp) return re
  let l = compiled.get(re)
  if (l === undefined) {
    l = new LinearRegExp(re.source, re.flags.replace(/[gy]/g, ''))
    compiled.set(re, l)
  }
  return l
}
