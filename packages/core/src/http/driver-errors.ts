import type { KnownError } from './framework-errors.js'

/** Server codes meaning "this node cannot serve the operation now" (stepping down, shutting down, not primary, a lock or commit past its time limit). */
const UNAVAILABLE_CODES = new Set([91, 189, 262, 10107, 11600, 11602, 13435, 13436])
/** Driver errors raised when no server answers at all (also what `/healthz` reports as unreachable). */
export const UNREACHABLE_DRIVER_ERRORS: ReadonlySet<string> = new Set([
  'MongoServerSelectionError',
  'MongoNetworkError',
  'MongoNetworkTimeoutError',
  'MongoNotConnectedError',
  'MongoTopologyClosedError'
])

/**
 * MongoDB driver errors a caller can act on: a query past `maxTimeMS` (code 50) is 503
 * QUERY_TIMEOUT, an unreachable or unwritable database 503 SERVICE_UNAVAILABLE. Neither
 * message carries the driver's text (it may name hosts or collections).
 */
export function driverError (err: Record<string, unknown>): KnownError | null {
  const name = typeof err.name === 'string' ? err.name : ''
  if (err.codeName === 'MaxTimeMSExpired' || (err.code === 50 && name.startsWith('Mongo'))) {
    return {
      code: 'QUERY_TIMEOUT',
      message: 'the query took longer than the service allows: narrow the filter or page size'
    }
  }
  if (
    UNREACHABLE_DRIVER_ERRORS.has(name) ||
    (typeof err.code === 'number' && name.startsWith('Mongo') && UNAVAILABLE_CODES.has(err.code))
  ) {
    return { code: 'SERVICE_UNAVAILABLE', message: 'the database is unavailable; retry shortly' }
  }
  return null
}
