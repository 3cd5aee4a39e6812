import type { AnyBulkWriteOperation } from 'mongodb'
import type { SubscriptionDoc } from '../subscriptions/subscription-store.js'

/** Spec: 10 consecutive failures disable a subscription. */
export const DISABLE_AFTER = 10

/** One finished attempt as the subscription's health sees it. */
export interface Health {
  sub: SubscriptionDoc
  /** A 2xx within the latency budget. */
  healthy: boolean
  /** A 2xx at all (a slow one too): the event was delivered. */
  delivered: boolean
  at: Date
}

/**
 * One batch's effect on each subscription, in the order its attempts finished: a healthy
 * success resets `failureCount` (then counts the misses after it); a failure or a slow success
 * adds one. Any 2xx sets `lastDeliveryAt`. Subscriptions that missed are checked against
 * DISABLE_AFTER afterwards.
 */
export function subscriptionUpdates (outcomes: Health[]): {
  updates: Array<AnyBulkWriteOperation<SubscriptionDoc>>
  disable: string[]
} {
  const bySub = new Map<string, { reset: boolean; missesAfter: number; lastDelivered: Date | null }>()
  for (const { sub, healthy, delivered, at } of outcomes) {
    const s = bySub.get(sub._id) ?? { reset: false, missesAfter: 0, lastDelivered: null }
    if (healthy) {
      s.reset = true
      s.missesAfter = 0
    } else s.missesAfter++
    if (delivered) s.lastDelivered = at
    bySub.set(sub._id, s)
  }
  const updates: Array<AnyBulkWriteOperation<SubscriptionDoc>> = []
  const disable: string[] = []
  for (const [_id, s] of bySub) {
    const delivered = s.lastDelivered !== null ? { lastDeliveryAt: s.lastDelivered } : {}
    const update = s.reset
      ? { $set: { failureCount: s.missesAfter, ...delivered } }
      : { $inc: { failureCount: s.missesAfter }, ...(s.lastDelivered !== null ? { $set: delivered } : {}) }
    updates.push({ updateOne: { filter: { _id }, update } })
    if (s.missesAfter > 0) disable.push(_id)
  }
  return { updates, disable }
}
