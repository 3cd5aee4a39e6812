/**
 * Stored documents are shared with cursors, snapshots and replies, so nothing may change them in
 * place. `copyContainers` gives a caller (e.g. a mingo projection that deletes nested fields) its
 * own objects and arrays; `deepFreeze` lets tests make any in-place change throw.
 */
import { isPlainDoc } from './paths.js'

/**
 * Sets an own field: a field named `__proto__` (a legal BSON field name, kept by mongod) is
 * defined, since assigning it would set the object's prototype instead.
 */
export function setOwn (out: Record<string, unknown>, k: string, v: unknown): void {
  if (k === '__proto__') {
    Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true })
  } else out[k] = v
}

/** A copy of every plain object and array in `value`; BSON values (ObjectId, Date…) are shared, they are immutable. */
export function copyContainers<T> (value: T): T {
  if (Array.isArray(value)) return value.map(copyContainers) as T
  if (isPlainDoc(value)) {
    const out: Record<string, unknown> = {}
    for (const k of Object.keys(value)) setOwn(out, k, copyContainers(value[k]))
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
