import type { Document } from 'mongodb'
import type { FastifyBaseLogger } from 'fastify'
import type { ResourceModel } from '../schema/model.js'

/**
 * Extension point 4 — called after records left the database for good (a hard delete by id, soft
 * delete's retention sweep), with the removed documents as stored (BSON). `@svc/files` removes
 * their blobs here. Must be idempotent: a retried sweep may hand the same key twice after a crash
 * elsewhere.
 */
export type PurgeHook = (args: { model: ResourceModel; docs: Document[] }) => void | Promise<void>

/**
 * Runs every purge hook in turn. The records are gone already, so a failing hook is logged and
 * the next one still runs: at worst it leaves orphan blobs, never a record without its blob.
 */
export async function runPurgeHooks (
  hooks: PurgeHook[],
  model: ResourceModel,
  docs: Document[],
  log: FastifyBaseLogger
): Promise<void> {
  if (docs.length === 0) return
  for (const hook of hooks) {
    try {
      await hook({ model, docs })
    } catch (err) {
      log.error({ err, path: model.path, ids: docs.map((d) => String(d._id)) }, 'purge hook failed')
    }
  }
}
