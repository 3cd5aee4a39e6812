/**
 * Stored documents are shared with cursors, snapshots and replies, so nothing may change them in
 * place. `copyContainers` gives a caller (e.g. a mingo projection that deletes nested fields) its
 * own objects and arrays; `deepFreeze` lets tests make any in-place change throw.
 */
import { isPlainDoc } from './paths.js'

/** A copy of every plain object and array in `value`; BSON values (ObjectId, Date…) are shared, they are immutable. */
export function copyContainers<T> (value: T): T {
  if (Array.isArray(value)) return value.map(copyContainers) as T
  if (isPlainDoc(value)) {
    const out: Record<string, unknown> = {}
    for (const k of Object.keys(value)) out[k] = copyContainers(value[k])
    return out as T
  }
  return value
}

/** Freezes every plain object and array reachable from `value`. */
export function deepFreeze<T> (value: T): T {
  if ((Array.isArray(value) || isPlainDoc(value)) && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const v of Object.values(value as object)) deepFreeze(v)
  }
  return value
}
