import { ValidationError } from '@svc/core'

const PATTERN = /^(\*|[A-Za-z0-9_-]+\.(\*|[A-Za-z]+)|webhook\.test)$/

/** Refuses a pattern that can never match (`order`, `order.*.x`, `**`): a typo must not fail silently. */
export function checkPatterns (events: string[]): void {
  const bad = events.filter((e) => !PATTERN.test(e))
  if (bad.length > 0) throw new ValidationError(`events must be '*', '<path>.*' or '<path>.<action>' (got ${bad.map((b) => `'${b}'`).join(', ')})`, { field: 'events', invalid: bad })
}

/** Spec matching: the exact type, `<path>.*` for every event of a resource, `*` for all. */
export function matches (patterns: readonly string[], type: string): boolean {
  const dot = type.lastIndexOf('.')
  const resource = `${type.slice(0, dot)}.*`
  return patterns.some((p) => p === '*' || p === type || p === resource)
}
