import type { ConsoleServer } from './helper.js'
import type { Recorded } from './browser.js'

// The public API a typed-client user reaches: every schema's routes as `_describe` lists them,
// the auth routes, the webhook subscription routes (README "Webhooks"), file downloads. The
// console's own page and assets are the only other requests allowed.
const AUTH = [
  'POST /login',
  'POST /register',
  'POST /auth/refresh',
  'POST /auth/forgot-password',
  'POST /auth/reset-password'
]
const UNAUTHENTICATED = new Set([...AUTH, 'GET /_describe'])
const WEBHOOKS = [
  'GET /api/v1/webhooks',
  'POST /api/v1/webhooks',
  'GET /api/v1/webhooks/:id',
  'PATCH /api/v1/webhooks/:id',
  'DELETE /api/v1/webhooks/:id',
  'POST /api/v1/webhooks/:id/test',
  'GET /api/v1/webhooks/:id/deliveries'
]

function matcher (route: string): RegExp {
  const [method, path] = route.split(' ')
  return new RegExp(`^${method} ${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:id/g, '[^/]+')}$`)
}

export interface RequestReport {
  unknown: string[]
  foreignBearer: string[]
  clientIds: string[]
  apiCalls: number
  streams: number
}

function userIdOf (authorization: string | undefined): string | null {
  const token = authorization?.replace(/^Bearer /, '') ?? ''
  try {
    return JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString()).user_id ?? null
  } catch {
    return null
  }
}

export async function checkRequests (
  server: ConsoleServer,
  requests: Recorded[],
  userId: string
): Promise<RequestReport> {
  const describe = (await server.app.inject('/_describe')).json() as {
    schemas: Array<{ endpoints: { rest: Array<{ method: string; path: string }>; realtime?: { stream: string } } }>
  }
  // The realtime feed, where `_describe` lists it: a ticket (bearer), then the stream (the ticket).
  const feeds = new Set(
    describe.schemas.flatMap((s) =>
      s.endpoints.realtime !== undefined ? [s.endpoints.realtime.stream.split('?')[0]] : []
    )
  )
  const streams = new Set([...feeds].map((f) => `GET ${f}`))
  const routes = [
    ...AUTH,
    'GET /_describe',
    ...WEBHOOKS,
    ...describe.schemas.flatMap((s) => s.endpoints.rest.map((e) => `${e.method} ${e.path}`)),
    ...streams,
    ...[...feeds].map((f) => `POST ${f}/tickets`)
  ]
  const matchers = routes.map((r) => ({ route: r, re: matcher(r) }))
  const report: RequestReport = { unknown: [], foreignBearer: [], clientIds: [], apiCalls: 0, streams: 0 }
  const origin = new URL(server.url).origin
  for (const r of requests) {
    const line = `${r.method} ${r.url.pathname}`
    if (
      r.url.origin === origin &&
      r.method === 'GET' &&
      (r.url.pathname === '/console' || r.url.pathname.startsWith('/console/'))
    ) {
      continue
    }
    if (r.url.origin === origin && r.method === 'GET' && r.url.pathname.startsWith('/files/')) continue
    const hit = r.url.origin === origin ? matchers.find((m) => m.re.test(line)) : undefined
    if (hit === undefined) {
      report.unknown.push(`${line}${r.url.search}`)
      continue
    }
    report.apiCalls++
    if (r.headers['x-client-id'] !== undefined) report.clientIds.push(line)
    if (streams.has(hit.route)) {
      // EventSource cannot send a bearer: the single-use ticket (issued to this person) stands in.
      report.streams++
      if (r.url.searchParams.get('ticket') === null || r.headers.authorization !== undefined) {
        report.foreignBearer.push(line)
      }
      continue
    }
    if (!UNAUTHENTICATED.has(hit.route) && userIdOf(r.headers.authorization) !== userId) report.foreignBearer.push(line)
  }
  return report
}
