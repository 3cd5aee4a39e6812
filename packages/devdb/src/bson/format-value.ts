/** BSON values as mongod prints them in messages (E11000 keys, specs echoed in errors, explain bounds). */
export function formatValue (v: unknown): string {
  if (v === null || v === undefined) return 'null'
  if (typeof v === 'string') return JSON.stringify(v)
  if (typeof v === 'number' || typeof v === 'boolean') return String(v)
  if (v instanceof Date) return `new Date(${v.getTime()})`
  if (Array.isArray(v)) return '[ ' + v.map(formatValue).join(', ') + ' ]'
  const t = (v as { _bsontype?: string })._bsontype
  if (t === 'ObjectId') return `ObjectId('${(v as { toHexString: () => string }).toHexString()}')`
  if (t === 'Long') return String(v)
  if (t === 'Decimal128') return `NumberDecimal("${String(v)}")`
  if (t !== undefined) return String(v)
  const o = v as Record<string, unknown>
  const parts = Object.keys(o).map((k) => `${k}: ${formatValue(o[k])}`)
  return parts.length === 0 ? '{}' : '{ ' + parts.join(', ') + ' }'
}
