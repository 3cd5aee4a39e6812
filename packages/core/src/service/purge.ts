import type { Document } from 'mongodb'
import type { ResourceModel } from '../schema/model.js'

/**
 * Extension point 4 — called after records left the database for good (soft delete's retention
 * sweep), with the removed documents as stored (BSON). `@svc/files` removes their blobs here.
 * Must be idempotent: a retried sweep may hand the same key twice after a crash elsewhere.
 */
export type PurgeHook = (args: { model: ResourceModel, docs: Document[] }) => void | Promise<void>
