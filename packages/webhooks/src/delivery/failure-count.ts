import type { AnyBulkWriteOperation } from 'mongodb'
import type { SubscriptionDoc } from '../subscriptions/subscription-store.js'
import type { SendResult } from './sender.js'

/** Spec: 10 consecutive failures disable a subscription. */
export const DISABLE_AFTER = 10

/**
 * One batch's effect on each subscription, in the order its attempts finished: a success resets
 * `failureCount` (then counts the failures after it) and sets `lastDeliveryAt`; failures alone add
 * to the stored count. Subscriptions that failed are checked against DISABLE_AFTER afterwards.
 */
export function subscriptionUpdates (outcomes: Array<{ sub: SubscriptionDoc, res: SendResult, at: Date }>): { updates: Array<AnyBulkWriteOperation<SubscriptionDoc>>, disable: string[] } {
  const bySub = new Map<string, { lastOk: Date | null, failuresAfter: number }>()
  for (const { sub, res, at } of outcomes) {
    const s = bySub.get(sub._id) ?? { lastOk: null, failuresAfter: 0 }
    if (res.ok) { s.lastOk = at; s.failuresAfter = 0 } else s.failuresAfter++
    bySub.set(sub._id, s)
  }
  const updates: Array<AnyBulkWriteOperation<SubscriptionDoc>> = []
  const disable: string[] = []
  for (const [_id, s] of bySub) {
    if (s.lastOk !== null) updates.push({ updateOne: { filter: { _id }, update: { $set: { failureCount: s.failuresAfter, lastDeliveryAt: s.lastOk } } } })
    else updates.push({ updateOne: { filter: { _id }, update: { $inc: { failureCount: s.failuresAfter } } } })
    if (s.failuresAfter > 0) disable.push(_id)
  }
  return { updates, disable }
}
