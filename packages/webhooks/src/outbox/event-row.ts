import { createHash } from 'node:crypto'
import type { WriteResult } from '@svc/core'
import type { OutboxDoc } from './outbox-store.js'

/**
 * A UUID-shaped id (version 5 layout) derived from `key`: core may build a write's effects again
 * when it replays the write, and the replay must land on the same outbox row.
 */
export function derivedUuid (key: string): string {
  const h = createHash('sha256').update(key).digest()
  h[6] = (h[6] & 0x0f) | 0x50
  h[8] = (h[8] & 0x3f) | 0x80
  const hex = h.subarray(0, 16).toString('hex')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}

/**
 * The outbox row of one write result: the record event core also emits in process (same type,
 * owner and payload), due for fan-out at once. One PUT can yield `updated` and `transitioned`
 * results (one per state field) under one `writeId`, so the action and field are in the key.
 */
export function eventRow (result: WriteResult): OutboxDoc {
  const { model } = result
  const type = `${model.path}.${result.action}`
  const id = derivedUuid(`${result.writeId}:${result.action}:${result.transition?.field ?? ''}`)
  const owner = result.after?.userId ?? result.before?.userId
  const record = result.after ?? result.before ?? undefined
  const now = new Date()
  return {
    _id: id,
    id,
    type,
    version: model.version,
    path: model.path,
    // The record's owner, not the actor (an acl.delete operator deleting): webhooks are per tenant.
    userId: typeof owner === 'string' ? owner : result.ctx.identity?.userId ?? null,
    ...(result.recordId !== undefined ? { recordId: result.recordId } : {}),
    ...(record != null && result.numAffected === undefined ? { record } : {}),
    ...(result.numAffected !== undefined ? { filter: result.filter ?? {}, numAffected: result.numAffected } : {}),
    createdAt: now,
    dueAt: now
  }
}
