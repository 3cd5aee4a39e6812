// The request layer against a real local HTTP peer scripted per test: retries (only for
// idempotent requests), Retry-After, network failures, answers that are not the envelope.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import t, { type Test } from 'tap'
import { createResource, isSvcError, MemoryTokenStore, SvcError, Transport } from '../src/index.js'

type Handler = (req: IncomingMessage, res: ServerResponse, n: number) => void

interface Peer {
  url: string
  seen: Array<{ method: string; url: string; headers: IncomingMessage['headers']; body: string }>
  handle: (h: Handler) => void
}

async function peer (t: Test): Promise<Peer> {
  let handler: Handler = (_req, res) => {
    res.end('{}')
  }
  const seen: Peer['seen'] = []
  const server = createServer((req, res) => {
    let body = ''
    req.on('data', (d: Buffer) => {
      body += d.toString()
    })
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body })
      handler(req, res, seen.length)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  )
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    handle: (h) => {
      handler = h
    }
  }
}

function json (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res
    .writeHead(status, { 'content-type': 'application/json', 'x-request-id': 'req-1', ...headers })
    .end(JSON.stringify(body))
}

const unavailable = { error: { code: 'SERVICE_UNAVAILABLE', message: 'database unreachable' } }

async function caught (p: Promise<unknown>): Promise<SvcError> {
  try {
    await p
  } catch (err) {
    if (err instanceof SvcError) return err
    throw err
  }
  throw new Error('expected a SvcError')
}

t.test('GETs are retried on 503 with backoff; the answer that works is returned', async (t) => {
  const p = await peer(t)
  p.handle((_req, res, n) => {
    n < 3 ? json(res, 503, unavailable) : json(res, 200, { ok: n })
  })
  const http = new Transport({ baseUrl: `${p.url}/prefix/`, retryDelayMs: 5, headers: { 'x-extra': '1' } })
  t.same(await http.request({ method: 'GET', path: '/x', query: new URLSearchParams({ a: 'b' }) }), { ok: 3 })
  t.equal(p.seen.length, 3)
  t.equal(p.seen[0].url, '/prefix/x?a=b', 'base URL path prefix kept, trailing slash dropped')
  t.equal(p.seen[0].headers['x-extra'], '1')
})

t.test('retries give up after `retries` and throw the last error', async (t) => {
  const p = await peer(t)
  p.handle((_req, res) => {
    json(res, 503, unavailable)
  })
  const e = await caught(
    new Transport({ baseUrl: p.url, retries: 1, retryDelayMs: 1 }).request({ method: 'GET', path: '/x' })
  )
  t.match(e, { code: 'SERVICE_UNAVAILABLE', status: 503, requestId: 'req-1' })
  t.equal(p.seen.length, 2)
})

t.test('non-idempotent requests are sent once; creates with a key are retried with it', async (t) => {
  const p = await peer(t)
  p.handle((_req, res) => {
    json(res, 503, unavailable)
  })
  const http = new Transport({ baseUrl: p.url, retryDelayMs: 1 })
  for (const method of ['POST', 'PUT', 'DELETE'] as const) {
    p.seen.length = 0
    t.equal((await caught(http.request({ method, path: '/x', json: {} }))).code, 'SERVICE_UNAVAILABLE')
    t.equal(p.seen.length, 1, `${method} without a key: one attempt`)
  }
  p.seen.length = 0
  p.handle((_req, res, n) => {
    n < 2 ? json(res, 502, unavailable) : json(res, 201, { _id: 'a' })
  })
  t.same(await http.request({ method: 'POST', path: '/x', json: { a: 1 }, idempotencyKey: 'k-1' }), { _id: 'a' })
  t.same(
    p.seen.map((s) => [s.headers['idempotency-key'], s.body]),
    [
      ['k-1', '{"a":1}'],
      ['k-1', '{"a":1}']
    ],
    'the same key and body on the retry'
  )
})

t.test('QUERY_TIMEOUT is not retried (the same query would time out again)', async (t) => {
  const p = await peer(t)
  p.handle((_req, res) => {
    json(res, 503, { error: { code: 'QUERY_TIMEOUT', message: 'narrow the filter' } })
  })
  t.equal(
    (await caught(new Transport({ baseUrl: p.url, retryDelayMs: 1 }).request({ method: 'GET', path: '/x' }))).code,
    'QUERY_TIMEOUT'
  )
  t.equal(p.seen.length, 1)
})

t.test('429 waits Retry-After seconds', async (t) => {
  const p = await peer(t)
  p.handle((_req, res, n) => {
    n === 1
      ? json(res, 429, { error: { code: 'RATE_LIMITED', message: 'slow down' } }, { 'retry-after': '0.2' })
      : json(res, 200, [n])
  })
  const start = Date.now()
  t.same(await new Transport({ baseUrl: p.url, retryDelayMs: 1 }).request({ method: 'GET', path: '/x' }), [2])
  t.ok(Date.now() - start >= 140, 'waited about Retry-After')
})

t.test('no answer: NETWORK after the retries; an abort during the backoff stops at once', async (t) => {
  const p = await peer(t)
  p.handle((req) => {
    req.socket.destroy()
  })
  const e = await caught(
    new Transport({ baseUrl: p.url, retries: 2, retryDelayMs: 1 }).request({ method: 'GET', path: '/x' })
  )
  t.match(e, { code: 'NETWORK', status: 0 })
  t.ok(e.cause, 'the fetch failure is the cause')
  t.equal(p.seen.length, 3)
  const ac = new AbortController()
  setTimeout(() => ac.abort(), 50)
  const start = Date.now()
  await t.rejects(
    new Transport({ baseUrl: p.url, retryDelayMs: 5000 }).request({ method: 'GET', path: '/x', signal: ac.signal }),
    { name: 'AbortError' }
  )
  t.ok(Date.now() - start < 2000, 'did not wait out the backoff')
})

t.test('answers that are not the service envelope', async (t) => {
  const p = await peer(t)
  const http = new Transport({ baseUrl: p.url, retries: 0 })
  p.handle((_req, res) => {
    res.writeHead(502, { 'content-type': 'text/html' }).end('<h1>Bad gateway</h1>')
  })
  t.match(await caught(http.request({ method: 'GET', path: '/x' })), { code: 'BAD_RESPONSE', status: 502 })
  p.handle((_req, res) => {
    res.writeHead(200).end('not json')
  })
  t.match(await caught(http.request({ method: 'GET', path: '/x' })), { code: 'BAD_RESPONSE', status: 200 })
  p.handle((_req, res) => {
    res.writeHead(204).end()
  })
  t.equal(await http.request({ method: 'DELETE', path: '/x' }), undefined, 'an empty success')
  p.handle((_req, res) => {
    json(res, 418, { error: { code: 'TEAPOT', message: 'short and stout', details: 'not an object' } })
  })
  const e = await caught(http.request({ method: 'GET', path: '/x' }))
  t.match(e, { code: 'TEAPOT', message: 'short and stout', details: undefined })
  t.ok(isSvcError(e, 'TEAPOT' as never) && !isSvcError(e, 'NOT_FOUND'), 'isSvcError narrows by code')
})

t.test('refresh: only for UNAUTHENTICATED with a refresh token; the auth routes go without a bearer', async (t) => {
  const p = await peer(t)
  const tokens = new MemoryTokenStore({ accessToken: 'old' })
  const http = new Transport({ baseUrl: p.url, tokens, clientId: 'cid' })
  p.handle((_req, res) => {
    json(res, 401, { error: { code: 'UNAUTHENTICATED', message: 'expired' } })
  })
  t.equal(
    (await caught(http.request({ method: 'GET', path: '/x' }))).code,
    'UNAUTHENTICATED',
    'no refresh token: the 401 as is'
  )
  t.equal(p.seen.length, 1)
  t.equal(p.seen[0].headers.authorization, 'Bearer old')
  t.equal(p.seen[0].headers['x-client-id'], 'cid', 'both credentials are sent; the server prefers the bearer')
  p.seen.length = 0
  tokens.set({ accessToken: 'old', refreshToken: 'r1' })
  p.handle((req, res) => {
    if (req.url === '/auth/refresh') json(res, 200, { accessToken: 'new', refreshToken: 'r2' })
    else if (req.headers.authorization === 'Bearer new') json(res, 200, { ok: true })
    else json(res, 401, { error: { code: 'UNAUTHENTICATED', message: 'expired' } })
  })
  t.same(
    await http.request({ method: 'PUT', path: '/x', json: { a: 1 } }),
    { ok: true },
    'a PUT is replayed after the refresh'
  )
  const refresh = p.seen.find((s) => s.url === '/auth/refresh')!
  t.same(
    [refresh.headers.authorization, refresh.headers['x-client-id'], refresh.body],
    [undefined, undefined, '{"refreshToken":"r1"}']
  )
  t.same(tokens.get(), { accessToken: 'new', refreshToken: 'r2' })
  p.handle((_req, res) => {
    json(res, 403, { error: { code: 'FORBIDDEN', message: 'no' } })
  })
  t.equal((await caught(http.request({ method: 'GET', path: '/x' }))).code, 'FORBIDDEN', '403 never refreshes')
  t.throws(() => new Transport({ baseUrl: 'ftp://x' }), TypeError)
})

t.test('idempotencyKey: true sends one random UUID on every attempt of a create', async (t) => {
  const p = await peer(t)
  p.handle((_req, res, n) => {
    n === 1 ? json(res, 503, unavailable) : json(res, 201, { _id: String(n) })
  })
  const logs = createResource(new Transport({ baseUrl: p.url, retryDelayMs: 1 }), {
    version: 'v1',
    path: 'logs',
    softDelete: false,
    audit: false,
    search: false,
    relations: [],
    files: [],
    aggregations: [],
    stateFields: []
  }) as { create: (input: unknown, o: { idempotencyKey: true }) => Promise<unknown> }
  t.same(await logs.create({ line: 'x' }, { idempotencyKey: true }), { _id: '2' })
  t.same(await logs.create({ line: 'y' }, { idempotencyKey: true }), { _id: '3' })
  const keys = p.seen.map((s) => s.headers['idempotency-key'])
  t.match(keys[0], /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
  t.equal(keys[1], keys[0], 'the retry carries the same key')
  t.not(keys[2], keys[0], 'another call, another key')
})
