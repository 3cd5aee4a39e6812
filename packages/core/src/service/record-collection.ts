import type { Collection } from 'mongodb'

/**
 * A service's record collection for core's own service modules (relations, aggregations) that
 * read another service's records under its rules. Not exported from the package: no plugin or
 * surface can reach a record collection (test/record-collections.test.ts checks the sources).
 */
const kept = new WeakMap<object, Collection>()

export function keepCollection (owner: object, collection: Collection): void {
  kept.set(owner, collection)
}

export function collectionOf (owner: object): Collection {
  const c = kept.get(owner)
  if (c === undefined) throw new Error('@svc/core: not a resource service')
  return c
}
