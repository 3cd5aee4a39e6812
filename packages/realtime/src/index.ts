import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { Feed } from './feed/feed.js'
import { StreamSlots } from './feed/stream-slots.js'
import { schemaEventTypes } from './feed/views.js'
import { realtimeSettings } from './options.js'
import { eventsRoutes } from './sse/events-route.js'
import { Heartbeat } from './sse/heartbeat.js'
import { TicketStore } from './tickets/ticket-store.js'
import type { RealtimeApi, RealtimeOptions } from './types.js'

export type {
  DeliveredEvent,
  EventData,
  FeedSink,
  FeedSubscription,
  OpenOptions,
  RealtimeApi,
  RealtimeOptions,
  RealtimeSettings
} from './types.js'
export { TICKETS_COLLECTION } from './tickets/ticket-store.js'
export { realtimeSettings } from './options.js'

async function realtime (app: FastifyInstance, opts: RealtimeOptions): Promise<void> {
  const settings = realtimeSettings(opts)
  const log = app.log.child({ name: '@svc/realtime' })
  // Events come from core's durable log; it keeps them at least as long as a cursor must stay good.
  app.svc.eventLog.enable({ retentionMs: Math.round(settings.retentionHours * 3_600_000) })

  const slots = new StreamSlots(settings.maxStreamsPerUser)
  const feed = new Feed({ eventLog: app.svc.eventLog, services: () => app.svc.services.all(), slots, log })
  const tickets = new TicketStore(app.svc.db, settings.ticketTtlSeconds)
  const heartbeat = new Heartbeat(settings.heartbeatSeconds * 1000)
  await tickets.ensureIndexes()

  const api: RealtimeApi = { open: async (ctx, o, sink) => await feed.open(ctx, o, sink), settings }
  app.svc.realtime = api
  app.svc.features.realtime = true
  const stream = `${settings.prefix}/_events`
  app.svc.manifest.contribute((model) => {
    const service = app.svc.services.get(model.path, model.version)
    return { realtime: { events: schemaEventTypes(service), stream: `${stream}?types=${model.path}.*` } }
  })
  app.svc.manifest.section('realtime', () => ({
    stream: { method: 'GET', path: stream, resume: 'Last-Event-ID' },
    tickets: { method: 'POST', path: `${stream}/tickets`, ttlSeconds: settings.ticketTtlSeconds },
    retentionHours: settings.retentionHours,
    heartbeatSeconds: settings.heartbeatSeconds,
    maxStreamsPerUser: settings.maxStreamsPerUser
  }))
  await app.register(eventsRoutes, { prefix: settings.prefix, feed, tickets, heartbeat, settings })

  // The log is followed once the app is ready (core starts it in its own onReady, registered first).
  app.addHook('onReady', async () => {
    await feed.start()
  })
  // Open streams would keep the server from closing: end them first (clients resume elsewhere).
  app.addHook('preClose', async () => {
    heartbeat.stop()
    feed.close()
  })
}

export default fp(realtime, { name: '@svc/realtime', fastify: '5.x', dependencies: ['@svc/core'] })
export { realtime }
