import type { EventPayload } from '../jobs/job-store.js'

/**
 * The spec's bodies: single-record (`recordId`, `record`), bulk (`filter`, `numAffected`), and
 * CONTRACT's `webhook.test` (`subscriptionId`). `deliveredAt` is the time of this attempt.
 */
export function deliveryBody (ev: EventPayload, deliveredAt: Date): string {
  const head = { id: ev.id, type: ev.type, version: ev.version, userId: ev.userId }
  const at = deliveredAt.toISOString()
  if (ev.subscriptionId !== undefined) {
    return JSON.stringify({ ...head, subscriptionId: ev.subscriptionId, deliveredAt: at })
  }
  if (ev.numAffected !== undefined) {
    return JSON.stringify({ ...head, filter: ev.filter ?? {}, numAffected: ev.numAffected, deliveredAt: at })
  }
  return JSON.stringify({ ...head, recordId: ev.recordId, record: ev.record, deliveredAt: at })
}
