const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400 }

/**
 * Parses a duration given as seconds (`900`, `'900'`) or `<n><unit>` with unit s, m, h or d
 * (`'15m'`, `'2h'`). Returns whole seconds. Shared by core options, the server config and the CLI
 * so one spelling means the same everywhere.
 */
export function parseDuration (value: number | string): number {
  if (typeof value === 'number') {
    if (!Number.isInteger(value) || value <= 0) {
      throw new Error(`invalid duration ${String(value)}: expected a positive whole number of seconds`)
    }
    return value
  }
  const match = /^\s*(\d+)\s*([smhd]?)\s*$/i.exec(String(value))
  if (match == null) {
    throw new Error(`invalid duration "${String(value)}": use seconds (900) or a number with s, m, h or d (15m, 2h)`)
  }
  const amount = Number(match[1])
  const seconds = amount * UNIT_SECONDS[(match[2] || 's').toLowerCase()]
  if (!Number.isSafeInteger(seconds) || seconds <= 0) {
    throw new Error(`invalid duration "${String(value)}": must be greater than zero`)
  }
  return seconds
}
