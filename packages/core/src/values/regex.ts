import safeRegex from 'safe-regex2'
import { MAX_REGEX_LENGTH } from './limits.js'

/**
 * Why a caller's `$regex` pattern is refused, or null when it may run. Nested quantifiers
 * (`(a+)+`) backtrack exponentially, so one tenant could stall the database for everyone;
 * the star-height check (safe-regex2, as Fastify uses) refuses them, and what it cannot see
 * is still cut off by the query time bound (`queryTimeoutMs`).
 */
export function regexProblem (pattern: unknown): string | null {
  if (typeof pattern !== 'string' || pattern.length > MAX_REGEX_LENGTH) {
    return `needs a string of at most ${MAX_REGEX_LENGTH} characters`
  }
  try {
    new RegExp(pattern) // eslint-disable-line no-new
  } catch {
    return 'is not a valid regular expression'
  }
  if (!safeRegex(pattern)) {
    return 'may backtrack catastrophically (nested quantifiers, or more than 25 of them): simplify the pattern'
  }
  return null
}
