import { ValidationError } from '../../errors.js'

/** The record events of a schema: `<path>.<action>`. */
export const EVENT_ACTIONS = ['created', 'updated', 'deleted', 'transitioned'] as const

const PATTERN = /^(\*|[A-Za-z0-9_-]+\.(\*|[A-Za-z]+)|webhook\.test)$/

/**
 * Refuses a pattern that can never match (`order`, `order.*.x`, `**`): a typo must not fail
 * silently. The syntax webhooks and realtime share: `*`, `<path>.*`, `<path>.<action>`.
 */
export function checkEventPatterns (patterns: readonly string[], field = 'events'): void {
  const bad = patterns.filter((e) => typeof e !== 'string' || !PATTERN.test(e))
  if (bad.length > 0) {
    const shown = bad.map((b) => `'${String(b)}'`).join(', ')
    throw new ValidationError(`${field} must be '*', '<path>.*' or '<path>.<action>' (got ${shown})`, {
      field,
      invalid: bad
    })
  }
}

/** Spec matching: the exact type, `<path>.*` for every event of a resource, `*` for all. */
export function eventTypeMatches (patterns: readonly string[], type: string): boolean {
  const dot = type.lastIndexOf('.')
  const resource = `${type.slice(0, dot)}.*`
  return patterns.some((p) => p === '*' || p === type || p === resource)
}

/**
 * Patterns a live feed may be asked for: the shared syntax, and each one naming a loaded schema
 * (`paths`) and one of its record events — `webhook.test` or `ordrs.*` is 400, not a feed that
 * stays silent. Answers the paths the patterns reach (every path for `*`).
 */
export function checkFeedPatterns (
  patterns: readonly string[],
  paths: ReadonlySet<string>,
  field = 'types'
): Set<string> {
  checkEventPatterns(patterns, field)
  const reached = new Set<string>()
  for (const p of patterns) {
    if (p === '*') {
      for (const path of paths) reached.add(path)
      continue
    }
    const dot = p.lastIndexOf('.')
    const path = p.slice(0, dot)
    const action = p.slice(dot + 1)
    if (!paths.has(path)) throw new ValidationError(`${field}: '${p}' names no loaded schema`, { field, invalid: [p] })
    if (action !== '*' && !(EVENT_ACTIONS as readonly string[]).includes(action)) {
      throw new ValidationError(`${field}: '${p}' is not a record event (${EVENT_ACTIONS.join(', ')})`, {
        field,
        invalid: [p]
      })
    }
    reached.add(path)
  }
  return reached
}
