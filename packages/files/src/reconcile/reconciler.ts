import type { FastifyBaseLogger } from 'fastify'
import type { ObjectId } from 'mongodb'
import { type ResourceService, SYSTEM_CONTEXT } from '@svc/core'
import { parseId } from '@svc/core/kit'
import type { StorageDriver } from '../storage/driver.js'
import { parseKey, type ParsedKey } from '../storage/keys.js'
import type { BlobStores } from '../storage/stores.js'

const BATCH = 500

export interface ReconcileDeps {
  services: ResourceService[]
  stores: BlobStores
  graceMs: number
  now: () => Date
  log: FastifyBaseLogger
}

type Blob = ParsedKey & { key: string }

/**
 * Removes blobs no record names: a crash between storing a blob and recording it, or a failed
 * removal after a replace or delete. Only blobs older than the grace period are considered (an
 * upload in flight has stored its blob but not yet written its record), and only keys of ours
 * whose schema and field still use that driver; tombstoned records keep their blobs. Safe on
 * several replicas at once: removal is idempotent.
 */
export async function reconcileOnce (deps: ReconcileDeps): Promise<{ removed: number }> {
  const before = new Date(deps.now().getTime() - deps.graceMs)
  let removed = 0
  for (const driver of deps.stores.all()) {
    removed += await driver.cleanIncomplete(before)
    let batch: Blob[] = []
    for await (const blob of driver.list(before)) {
      const parsed = parseKey(blob.key)
      if (parsed == null) continue
      batch.push({ ...parsed, key: blob.key })
      if (batch.length >= BATCH) {
        removed += await settle(deps, driver, batch)
        batch = []
      }
    }
    removed += await settle(deps, driver, batch)
  }
  if (removed > 0) deps.log.info({ removed }, 'removed orphan blobs')
  return { removed }
}

async function settle (deps: ReconcileDeps, driver: StorageDriver, blobs: Blob[]): Promise<number> {
  const groups = new Map<string, Blob[]>()
  for (const b of blobs) groups.set(`${b.path}/${b.field}`, [...(groups.get(`${b.path}/${b.field}`) ?? []), b])
  let removed = 0
  for (const group of groups.values()) {
    const { path, field } = group[0]
    const owners = deps.services.filter(
      (s) => s.model.path === path && s.model.fieldsByPath.get(field)?.file?.storage === driver.name
    )
    if (owners.length === 0) continue // a schema or field we do not serve from this driver: not ours to judge
    const named = new Set<string>()
    const ids = group.map((b) => parseId(b.id)).filter((id): id is ObjectId => id != null)
    for (const s of owners) {
      // No scope: a tombstoned record still owns its blobs until the sweep purges it.
      for (const key of await s.fileKeysOf(SYSTEM_CONTEXT, ids, field)) named.add(key)
    }
    for (const b of group) {
      if (named.has(b.key)) continue
      await driver.remove(b.key)
      removed++
    }
  }
  return removed
}
