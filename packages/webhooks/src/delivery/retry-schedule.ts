/** Spec: retried after 1 s, 5 s, 30 s, 5 min, 1 h. */
export const DEFAULT_RETRY_SCHEDULE = [1, 5, 30, 300, 3600]

/** `WEBHOOK_RETRY_SCHEDULE`: comma-separated seconds (fractions allowed, tests shorten it). */
export function parseRetrySchedule (text: string): number[] {
  const parts = text.split(',').map((p) => p.trim())
  const secs = parts.map(Number)
  if (parts.length === 0 || parts.some((p) => p === '') || secs.some((s) => !Number.isFinite(s) || s < 0)) {
    throw new Error(`WEBHOOK_RETRY_SCHEDULE must be comma-separated non-negative seconds (got '${text}')`)
  }
  return secs
}

export function checkRetrySchedule (secs: number[]): number[] {
  if (!Array.isArray(secs) || secs.some((s) => typeof s !== 'number' || !Number.isFinite(s) || s < 0)) {
    throw new Error('@svc/webhooks: retrySchedule must be an array of non-negative seconds')
  }
  return secs
}
