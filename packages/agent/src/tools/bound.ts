/** Default cap on a tool result as the model sees it (characters of JSON). */
export const DEFAULT_MAX_RESULT_CHARS = 16_000

/**
 * Fits a tool result into `max` characters of JSON before it reaches the model: a list envelope
 * keeps as many leading `results` as fit and says how many it left out; anything else is cut.
 */
export function boundResult (result: unknown, max: number): { value: unknown; text: string; truncated: boolean } {
  const text = typeof result === 'string' ? result : (JSON.stringify(result) ?? 'null')
  if (text.length <= max) return { value: result, text, truncated: false }
  const envelope = result as { results?: unknown[] } | null
  if (envelope != null && typeof envelope === 'object' && Array.isArray(envelope.results)) {
    const all = envelope.results
    let lo = 0
    let hi = all.length
    // Largest prefix that fits, by binary search over the serialized size.
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2)
      const candidate = JSON.stringify({ ...envelope, results: all.slice(0, mid), omittedForSize: all.length - mid })
      if (candidate.length <= max) lo = mid
      else hi = mid - 1
    }
    const value = { ...envelope, results: all.slice(0, lo), omittedForSize: all.length - lo }
    const fitted = JSON.stringify(value)
    if (fitted.length <= max) return { value, text: fitted, truncated: true }
  }
  const cut = `${text.slice(0, Math.max(0, max - 40))}… [truncated ${text.length - max + 40} chars]`
  return { value: cut, text: cut, truncated: true }
}
