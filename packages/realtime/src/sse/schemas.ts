import { Type } from '@sinclair/typebox'

export const EventsQuery = Type.Object({
  types: Type.Optional(
    Type.String({
      maxLength: 4000,
      description: "comma-separated webhook patterns: '<path>.<action>', '<path>.*' or '*' (default)"
    })
  ),
  lastEventId: Type.Optional(
    Type.String({ maxLength: 64, description: 'resume after this cursor (the `Last-Event-ID` header wins)' })
  ),
  ticket: Type.Optional(
    Type.String({
      maxLength: 128,
      description: 'a single-use ticket from POST /_events/tickets, for EventSource (instead of a bearer)'
    })
  )
})

export const EventsHeaders = Type.Object({
  'last-event-id': Type.Optional(
    Type.String({ maxLength: 64, description: 'resume after this cursor (sent by EventSource when it reconnects)' })
  )
})

const ErrorEnvelope = Type.Object({
  error: Type.Object({
    code: Type.String(),
    message: Type.String(),
    details: Type.Optional(Type.Object({}, { additionalProperties: true }))
  })
})

export const EventsResponses = {
  200: Type.String({
    description:
      'text/event-stream: each event is `id: <cursor>`, `event: <type>`, `data: { id, type, version, userId, recordId, record, at }` ' +
      '(bulk: `{ id, type, version, userId, filter, numAffected, at }`); `event: reset` when the cursor is past retention; comment lines as heartbeats'
  }),
  400: ErrorEnvelope,
  401: ErrorEnvelope,
  // An api client naming a schema its role has no scope for.
  403: ErrorEnvelope,
  429: ErrorEnvelope
}

export const TicketResponses = {
  200: Type.Object({
    ticket: Type.String({ description: 'single use, for `GET /_events?ticket=`' }),
    expiresAt: Type.String({ format: 'date-time' })
  }),
  401: ErrorEnvelope,
  // Api clients get no tickets (they send X-Client-Id themselves).
  403: ErrorEnvelope
}
