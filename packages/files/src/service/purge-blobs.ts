import type { PurgeHook } from '@svc/core/kit'
import { BlobStores, fileFields } from '../storage/stores.js'

/**
 * Core's purge hook (hard delete by id, soft delete's retention sweep): the records are gone, so
 * their blobs go too. Every blob is tried; the first failure is rethrown for core to log (the
 * rest stay as orphans for the reconciler).
 */
export function purgeBlobs (stores: BlobStores): PurgeHook {
  return async ({ model, docs }) => {
    let failure: unknown
    for (const field of fileFields(model)) {
      const driver = stores.for(field)
      for (const doc of docs) {
        const key = (doc[field.name] as { key?: unknown } | null | undefined)?.key
        if (typeof key !== 'string') continue
        await driver.remove(key).catch((err: unknown) => {
          failure ??= err
        })
      }
    }
    if (failure !== undefined) throw failure
  }
}
