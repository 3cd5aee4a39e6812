/** Dotted-path reads with MongoDB's array traversal (used for index keys and sort keys). */

export const MISSING = Symbol('missing')

/**
 * All values reachable at `path`, descending into arrays like MongoDB's index key generation:
 * `a.b` on `{a:[{b:1},{b:2}]}` yields [1, 2]; numeric components index arrays.
 * Leaf arrays are returned as-is (callers decide whether to unwind them).
 */
export function valuesAtPath (doc: unknown, path: string): unknown[] {
  const out: unknown[] = []
  collect(doc, path.split('.'), 0, out)
  return out
}

function collect (value: unknown, parts: string[], i: number, out: unknown[]): void {
  if (i === parts.length) {
    out.push(value)
    return
  }
  if (value === null || typeof value !== 'object') return
  const part = parts[i]
  if (Array.isArray(value)) {
    if (/^\d+$/.test(part)) {
      const idx = Number(part)
      if (idx < value.length) collect(value[idx], parts, i + 1, out)
      // MongoDB also matches the field name against subdocuments in the array; numeric keys are rare.
      return
    }
    for (const el of value) {
      if (el !== null && typeof el === 'object' && !Array.isArray(el)) collect(el, parts, i, out)
    }
    return
  }
  if (isPlainDoc(value)) {
    const o = value as Record<string, unknown>
    if (Object.prototype.hasOwnProperty.call(o, part) && o[part] !== undefined) collect(o[part], parts, i + 1, out)
  }
}

export function isPlainDoc (v: unknown): v is Record<string, unknown> {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false
  const proto = Object.getPrototypeOf(v)
  return proto === Object.prototype || proto === null
}

/** Single value at a dotted path through embedded documents only (no array traversal); MISSING when absent. */
export function getPath (doc: unknown, path: string): unknown {
  let cur: unknown = doc
  for (const part of path.split('.')) {
    if (cur === null || typeof cur !== 'object') return MISSING
    if (Array.isArray(cur)) {
      if (!/^\d+$/.test(part)) return MISSING
      cur = cur[Number(part)]
    } else {
      const o = cur as Record<string, unknown>
      if (!Object.prototype.hasOwnProperty.call(o, part)) return MISSING
      cur = o[part]
    }
    if (cur === undefined) return MISSING
  }
  return cur
}
