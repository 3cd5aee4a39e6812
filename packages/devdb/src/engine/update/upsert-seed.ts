/**
 * The document an upsert starts from: the equality predicates of the query (top level and
 * inside $and), as mongod seeds it before applying the update operators.
 */
import type { Document } from 'bson'
import { CommandError } from '../../errors.js'
import { isPlainDoc } from '../../bson/paths.js'
import { cloneDoc } from './clone.js'

export function upsertSeed (query: Document | undefined): Document {
  const seed: Document = {}
  if (query !== undefined) collect(query, seed)
  return seed
}

function collect (q: Document, seed: Document): void {
  for (const [k, v] of Object.entries(q)) {
    if (k === '$and' && Array.isArray(v)) {
      for (const sub of v) if (isPlainDoc(sub)) collect(sub, seed)
      continue
    }
    if (k.startsWith('$')) continue
    let value: unknown
    if (isPlainDoc(v) && Object.keys(v).length > 0 && Object.keys(v)[0].startsWith('$')) {
      if (Object.keys(v).includes('$eq')) value = v.$eq
      else continue
    } else if (v instanceof RegExp) continue
    else value = v
    setSeed(seed, k, cloneDoc(value))
  }
}

function setSeed (seed: Document, path: string, value: unknown): void {
  const parts = path.split('.')
  let cur: Document = seed
  for (let i = 0; i < parts.length - 1; i++) {
    const next = cur[parts[i]]
    if (next === undefined) {
      const created: Document = {}
      cur[parts[i]] = created
      cur = created
    } else if (isPlainDoc(next)) cur = next
    else {
      throw new CommandError(
        54,
        'NotSingleValueField',
        `cannot infer query fields to set, path '${path}' is matched twice`
      )
    }
  }
  const last = parts[parts.length - 1]
  if (cur[last] !== undefined) {
    throw new CommandError(
      54,
      'NotSingleValueField',
      `cannot infer query fields to set, path '${path}' is matched twice`
    )
  }
  cur[last] = value
}
