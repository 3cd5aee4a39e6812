import type { RequestContext, SvcContext } from '@svc/core'
import type { PublishedEvent } from '@svc/core/kit'
import { expect, test } from 'tstyche'
import type { Subscription, WebhooksService } from '../../src/index.js'
import type { EventPayload } from '../../src/jobs/job-store.js'

declare const svc: SvcContext
declare const ctx: RequestContext

test('importing @svc/webhooks adds app.svc.webhooks, absent until registered', () => {
  expect(svc.webhooks).type.toBe<WebhooksService | undefined>()
  expect<SvcContext>().type.toHaveProperty('webhooks')
})

test('app.svc.webhooks creates a subscription from events and a url', () => {
  const webhooks = svc.webhooks!
  expect(webhooks.create(ctx, { events: ['contacts.created'], url: 'https://example.com/hook' })).type.toBe<
    Promise<Subscription>
  >()
  expect(webhooks.create).type.not.toBeCallableWith(ctx, { url: 'https://example.com/hook' })
})

test("a delivery body is core's published event", () => {
  expect<EventPayload>().type.toBeAssignableTo<PublishedEvent>()
})
