import type { RequestContext, SvcContext } from '@svc/core'
import type { PublishedEvent } from '@svc/core/kit'
import { expect, test } from 'tstyche'
import type { EventData, FeedSink, FeedSubscription, RealtimeApi, RealtimeSettings } from '../../src/index.js'

declare const svc: SvcContext
declare const ctx: RequestContext
declare const sink: FeedSink

test('importing @svc/realtime adds app.svc.realtime, absent until registered', () => {
  expect(svc.realtime).type.toBe<RealtimeApi | undefined>()
  expect<SvcContext>().type.toHaveProperty('realtime')
})

test('app.svc.realtime opens a subscription for a context and a sink', () => {
  const realtime = svc.realtime!
  expect(realtime.open(ctx, { types: ['contacts.*'] }, sink)).type.toBe<Promise<FeedSubscription>>()
  expect(realtime.open).type.not.toBeCallableWith(ctx, { types: 'contacts.*' }, sink)
  expect(realtime.settings).type.toBe<RealtimeSettings>()
})

test("an SSE event is core's published event with its time", () => {
  expect<EventData>().type.toBeAssignableTo<PublishedEvent>()
  expect<EventData['at']>().type.toBe<string>()
})
