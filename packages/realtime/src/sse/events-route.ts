import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { OutgoingHttpHeaders } from 'node:http'
import { UnauthenticatedError, type Identity, type RequestContext } from '@svc/core'
import { requestContext } from '@svc/core/kit'
import type { Feed } from '../feed/feed.js'
import { parseTypes } from '../feed/views.js'
import type { TicketStore } from '../tickets/ticket-store.js'
import type { RealtimeSettings } from '../types.js'
import type { Heartbeat } from './heartbeat.js'
import { EventsHeaders, EventsQuery, EventsResponses, TicketResponses } from './schemas.js'
import { SseStream } from './sse-stream.js'

interface EventsRequest {
  query: { types?: string; lastEventId?: string; ticket?: string }
}

export interface EventsRouteOptions {
  feed: Feed
  tickets: TicketStore
  heartbeat: Heartbeat
  settings: RealtimeSettings
}

function sameIdentity (a: Identity, b: Identity): boolean {
  const roles = (i: Identity): string => [...i.roles].sort().join(',')
  return (
    a.kind === b.kind &&
    a.userId === b.userId &&
    a.accountId === b.accountId &&
    a.clientId === b.clientId &&
    roles(a) === roles(b)
  )
}

/**
 * A ticket stands for the identity that minted it, and is used up by the request that shows it.
 * Shown next to other credentials, those must be that same identity.
 */
async function streamIdentity (app: FastifyInstance, request: FastifyRequest, tickets: TicketStore): Promise<Identity> {
  const { ticket } = (request as FastifyRequest & EventsRequest).query
  if (ticket === undefined) return await app.svc.auth.authenticate(request, { allowClient: true })
  const bound = await tickets.take(ticket)
  if (request.headers.authorization !== undefined || request.headers['x-client-id'] !== undefined) {
    const other = await app.svc.auth.authenticate(request, { allowClient: true })
    if (!sameIdentity(other, bound)) throw new UnauthenticatedError('this ticket belongs to another identity')
  }
  request.identity = bound
  return bound
}

function streamHeaders (reply: FastifyReply): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {}
  // CORS, request id and security headers the hooks set on the reply (a hijacked reply would drop them).
  for (const [k, v] of Object.entries(reply.getHeaders())) if (v !== undefined) out[k] = v
  return {
    ...out,
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    'x-accel-buffering': 'no',
    connection: 'keep-alive'
  }
}

/** `GET /_events` (SSE) and `POST /_events/tickets`: errors before the stream are the JSON envelope. */
export async function eventsRoutes (app: FastifyInstance, opts: EventsRouteOptions): Promise<void> {
  const { feed, tickets, heartbeat, settings } = opts
  const retryMs = Math.min(3000, Math.round(settings.heartbeatSeconds * 1000))

  app.post(
    '/_events/tickets',
    {
      schema: {
        tags: ['realtime'],
        summary: "A single-use ticket (60 s) for `new EventSource('/api/v1/_events?ticket=…')`",
        response: TicketResponses
      }
    },
    async (request) => {
      const identity = await app.svc.auth.authenticate(request)
      const { ticket, expiresAt } = await tickets.mint(identity)
      return { ticket, expiresAt: expiresAt.toISOString() }
    }
  )

  app.get(
    '/_events',
    {
      exposeHeadRoute: false,
      schema: {
        tags: ['realtime'],
        summary: 'A live, resumable feed of record events (Server-Sent Events)',
        description:
          "Scoped like a list: the caller's tenant (and every tenant of a schema whose `acl.list` names one of its roles); " +
          "records projected through the caller's read ACL. Resume with `Last-Event-ID`.",
        produces: ['text/event-stream'],
        querystring: EventsQuery,
        headers: EventsHeaders,
        response: EventsResponses
      }
    },
    async (request, reply) => {
      const identity = await streamIdentity(app, request, tickets)
      const { query } = request as FastifyRequest & EventsRequest
      const header = request.headers['last-event-id']
      const lastEventId = typeof header === 'string' && header !== '' ? header : query.lastEventId
      const ctx: RequestContext = requestContext(request, 'rest', identity)
      const sink = new SseStream(reply.raw, {
        maxBufferedBytes: settings.maxBufferedBytes,
        onSlow: () => {
          request.log.info('realtime stream closed: the client does not read (a slow consumer)')
        }
      })
      const sub = await feed.open(
        ctx,
        { types: parseTypes(query.types), ...(lastEventId !== undefined ? { lastEventId } : {}) },
        sink
      )
      // Live from here: the headers go out now, and a write answered after them is always delivered.
      reply.hijack()
      const res = reply.raw
      const done = (): void => {
        heartbeat.streams.delete(sink)
        sub.close()
        sink.close()
      }
      res.on('close', done)
      if (request.raw.destroyed) return done()
      request.raw.socket.setNoDelay(true)
      request.raw.socket.setTimeout(0)
      res.writeHead(200, streamHeaders(reply))
      res.write(`retry: ${retryMs}\n\n`)
      heartbeat.streams.add(sink)
      sub.start()
    }
  )
}
