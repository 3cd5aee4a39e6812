import { eventTypeMatches } from '@svc/core/kit'
import { tenantOf, type SubscriptionDoc, type SubscriptionStore } from '../subscriptions/subscription-store.js'
import { newJob, type EventPayload, type JobDoc, type JobStore } from '../jobs/job-store.js'

/** A record event as fan-out needs it: from core's event log, or a row an older version left in `webhook_outbox`. */
export interface FanOutEvent {
  id: string
  type: string
  version: string
  path: string
  userId: string | null
  recordId?: string
  /** The record as written, unprojected: projected per subscriber here. */
  record?: Record<string, unknown>
  filter?: Record<string, unknown>
  numAffected?: number
}

export interface FanOutDeps {
  subscriptions: SubscriptionStore
  jobs: JobStore
  /** The record as `sub` may read it (its creator's field ACL); declared endpoints see it whole. */
  project: (ev: FanOutEvent, sub: SubscriptionDoc) => Record<string, unknown> | undefined
  /** New jobs are due: wake the local scheduler. */
  due: () => void
}

/**
 * Events → one job per matching subscription (`<eventId>:<subscriptionId>`, so a batch handed
 * again after a crash inserts nothing twice). A subscription sees its own tenant's events; a
 * schema-declared endpoint sees its schema's events of every tenant.
 */
export async function fanOut (events: readonly FanOutEvent[], d: FanOutDeps): Promise<number> {
  if (events.length === 0) return 0
  const userIds = [...new Set(events.map((e) => e.userId).filter((u): u is string => u !== null))]
  const schemas = [...new Set(events.map((e) => `${e.version}/${e.path}`))]
  const subs = await d.subscriptions.candidates(userIds, schemas)
  if (subs.length === 0) return 0
  const now = new Date()
  const jobs: JobDoc[] = []
  for (const ev of events) {
    for (const sub of subs) {
      const mine =
        sub.declaredBy !== undefined ? sub.declaredBy === `${ev.version}/${ev.path}` : sub.userId === ev.userId
      if (mine && eventTypeMatches(sub.events, ev.type)) {
        jobs.push(newJob(ev.id, sub._id, tenantOf(sub), payload(ev, d.project(ev, sub)), now))
      }
    }
  }
  const fresh = await d.jobs.addJobs(jobs)
  if (fresh.length > 0) d.due()
  return fresh.length
}

function payload (ev: FanOutEvent, record: Record<string, unknown> | undefined): EventPayload {
  return {
    id: ev.id,
    type: ev.type,
    version: ev.version,
    userId: ev.userId,
    ...(ev.recordId !== undefined ? { recordId: ev.recordId } : {}),
    ...(record !== undefined ? { record } : {}),
    ...(ev.numAffected !== undefined ? { filter: ev.filter ?? {}, numAffected: ev.numAffected } : {})
  }
}
