import t from 'tap'
import { buildApp, makeUser, stream } from './helper.js'
import { signToken } from '@svc/testkit'
import { JWT_SECRET } from './helper.js'
import type { RealtimeOptions } from '../src/types.js'

// CONTRACT "Realtime": errors before the stream starts are the JSON envelope.

t.test('refusals before the stream: 401, 400, in the JSON envelope', async (t) => {
  const b = await buildApp(t)
  const u = makeUser()
  const expired = {
    authorization: `Bearer ${signToken({ user_id: u.userId, email: 'x@example.test', roles: ['user'] }, JWT_SECRET, { expiresIn: -10 })}`
  }
  const cases: Array<[string, Record<string, string>, string, number, string]> = [
    ['no credentials', {}, '', 401, 'UNAUTHENTICATED'],
    ['an expired bearer', expired, '', 401, 'UNAUTHENTICATED'],
    [
      'alg none',
      { authorization: `Bearer ${signToken({ user_id: u.userId, roles: ['user'] }, JWT_SECRET, { alg: 'none' })}` },
      '',
      401,
      'UNAUTHENTICATED'
    ],
    ['an unknown api client', { 'x-client-id': 'nope' }, '', 401, 'UNAUTHENTICATED'],
    ['a schema that is not loaded', u.headers, 'types=orders.*', 400, 'VALIDATION'],
    ['a near miss of a schema', u.headers, 'types=contact.created', 400, 'VALIDATION'],
    ['an action that is no record event', u.headers, 'types=contacts.restored', 400, 'VALIDATION'],
    ['webhook.test is not a record event', u.headers, 'types=webhook.test', 400, 'VALIDATION'],
    ['a malformed pattern', u.headers, 'types=contacts', 400, 'VALIDATION'],
    [
      'a pattern reaching into another schema',
      u.headers,
      `types=${encodeURIComponent('contacts.*.logs')}`,
      400,
      'VALIDATION'
    ],
    ['a regex-looking pattern', u.headers, `types=${encodeURIComponent('c.*|logs.*')}`, 400, 'VALIDATION'],
    ['an empty pattern among others', u.headers, `types=${encodeURIComponent('contacts.*,')}`, 400, 'VALIDATION'],
    ['an altered cursor', u.headers, 'lastEventId=AQAAAAAAAAABxxxxxxxxxxxxxxxx', 400, 'VALIDATION'],
    ['a cursor that is no cursor', { ...u.headers, 'last-event-id': '12' }, '', 400, 'VALIDATION'],
    ['an unknown ticket', {}, 'ticket=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', 401, 'UNAUTHENTICATED'],
    ['a malformed ticket', {}, 'ticket=x', 401, 'UNAUTHENTICATED']
  ]
  for (const [what, headers, query, status, code] of cases) {
    const conn = await stream(t, b, headers, query)
    t.equal(conn.status, status, `${what}: status`)
    t.match(conn.headers.get('content-type'), /^application\/json/, `${what}: JSON`)
    t.equal(conn.body?.error?.code, code, `${what}: ${code}`)
    t.type(conn.body?.error?.message, 'string')
  }
  const probe = await b.app.inject({ method: 'HEAD', url: '/api/v1/_events', headers: u.headers })
  t.equal(probe.statusCode, 404, 'no HEAD route that would hijack a probe')
})

t.test('invalid options are refused at boot, naming the option', async (t) => {
  const bad: Array<[Record<string, unknown>, RegExp]> = [
    [{ prefix: 'api' }, /`prefix` must be a URL path/],
    [{ heartbeatSeconds: 0 }, /`heartbeatSeconds` must be a number > 0/],
    [{ maxStreamsPerUser: 1.5 }, /`maxStreamsPerUser` must be a whole number > 0/],
    [{ retentionHours: 'a day' }, /`retentionHours` must be a number > 0/]
  ]
  for (const [opts, message] of bad) {
    await t.rejects(buildApp(t, { realtime: opts as RealtimeOptions }), message, JSON.stringify(opts))
  }
})

t.test("_describe names the stream, tickets and each schema's event types", async (t) => {
  const b = await buildApp(t, { realtime: { heartbeatSeconds: 5 } })
  const res = await b.app.inject({ method: 'GET', url: '/_describe' })
  t.equal(res.statusCode, 200)
  const body = res.json()
  t.same(body.realtime.stream, { method: 'GET', path: '/api/v1/_events', resume: 'Last-Event-ID' })
  t.equal(body.realtime.tickets.path, '/api/v1/_events/tickets')
  t.equal(body.realtime.heartbeatSeconds, 5)
  const contacts = (body.schemas as Array<Record<string, any>>).find((s) => s.path === 'contacts')
  t.equal(contacts?.endpoints.realtime.stream, '/api/v1/_events?types=contacts.*')
  t.ok(contacts?.endpoints.realtime.events.includes('contacts.created'), 'created is among its events')
})
