// How values read in the console: dates in the reader's locale with the ISO form as a title,
// objects as compact JSON, files by name and size.

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' })

export function formatDate (iso: unknown): string {
  if (typeof iso !== 'string') return ''
  const d = new Date(iso)
  return Number.isNaN(d.getTime()) ? iso : dateFormat.format(d)
}

export function formatBytes (n: number): string {
  if (n < 1024) return `${n} B`
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`
  return `${(n / 1024 / 1024).toFixed(1)} MB`
}

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/

/** A cell or diff value as text; `null`/absent as an empty string (the caller shows a dash). */
export function formatValue (v: unknown): string {
  if (v === null || v === undefined) return ''
  if (typeof v === 'string') return ISO.test(v) ? formatDate(v) : v
  if (typeof v === 'number') return v.toLocaleString()
  if (typeof v === 'boolean') return v ? 'yes' : 'no'
  if (Array.isArray(v) && v.every((x) => typeof x !== 'object' || x === null)) return v.join(', ')
  const meta = v as { originalName?: unknown; size?: unknown }
  if (typeof meta.originalName === 'string' && typeof meta.size === 'number') {
    return `${meta.originalName} (${formatBytes(meta.size)})`
  }
  return JSON.stringify(v)
}
