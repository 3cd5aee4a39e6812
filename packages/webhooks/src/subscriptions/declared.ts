import { checkEventPatterns, type ResourceModel } from '@svc/core/kit'
import type { SubscriptionStore } from './subscription-store.js'

/** Schema `webhooks.events` may name bare actions (`created`) or full types; both mean this schema's events. */
function qualify (path: string, event: string): string {
  if (event === '*') return `${path}.*`
  return event.includes('.') ? event : `${path}.${event}`
}

/**
 * Schema-declared endpoints (operator-owned, every tenant's events of that schema) are stored as
 * subscriptions with stable ids, so they share delivery state, retries and attempt rows; an
 * endpoint removed from the schema is removed at the next boot. URLs are the operator's and are
 * not held to the SSRF guard.
 */
export async function syncDeclared (store: SubscriptionStore, models: ResourceModel[]): Promise<number> {
  let count = 0
  for (const model of models) {
    const declaredBy = `${model.version}/${model.path}`
    const decl = model.webhooks
    const endpoints = decl?.endpoints ?? []
    const events = (decl?.events ?? ['*']).map((e) => qualify(model.path, e))
    if (endpoints.length > 0) checkEventPatterns(events)
    const ids: string[] = []
    for (const [i, ep] of endpoints.entries()) {
      if (
        typeof ep?.url !== 'string' ||
        !/^https?:\/\//.test(ep.url) ||
        typeof ep.secret !== 'string' ||
        ep.secret === ''
      ) {
        throw new Error(`@svc/webhooks: ${model.source} webhooks.endpoints[${i}] needs an http(s) url and a secret`)
      }
      await store.upsertDeclared(declaredBy, i, events, ep.url, ep.secret)
      ids.push(`declared:${declaredBy}:${i}`)
      count++
    }
    await store.col.deleteMany({ declaredBy, _id: { $nin: ids } })
  }
  return count
}
