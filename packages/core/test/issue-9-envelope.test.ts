import t, { type Test } from 'tap'
import { connect } from 'node:net'
import createError from '@fastify/error'
import type { FastifyInstance, InjectOptions } from 'fastify'
import { svcServerOptions } from '../src/index.js'
import { buildCoreApp, makeUser } from './helper.js'

// Issue 9: responses outside the envelope — the router's 414 for a long id, Node's 431 body.
// Every refusal must be `{ error: { code, message } }` with a code of the documented table.

const TABLE = [
  'VALIDATION',
  'NOT_FOUND',
  'METHOD_NOT_ALLOWED',
  'REQUEST_TIMEOUT',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'HEADERS_TOO_LARGE',
  'UNAUTHENTICATED',
  'INTERNAL'
]

function envelope (
  t: Test,
  res: { statusCode: number; headers: Record<string, unknown>; body: string },
  status: number,
  code: string,
  label: string
): void {
  t.equal(res.statusCode, status, `${label}: status`)
  t.match(String(res.headers['content-type']), /^application\/json/, `${label}: JSON`)
  const body = JSON.parse(res.body)
  t.same(Object.keys(body), ['error'], `${label}: only the envelope`)
  t.equal(body.error.code, code, `${label}: code`)
  t.ok(TABLE.includes(body.error.code), `${label}: a documented code`)
  t.type(body.error.message, 'string', `${label}: message`)
  t.notMatch(body.error.message, /FST_|Bad Request|statusCode/, `${label}: no framework vocabulary`)
}

/** Raw bytes on a socket and the raw answer (inject cannot reach Node's HTTP parser). */
async function raw (
  port: number,
  bytes: string
): Promise<{ statusCode: number; headers: Record<string, string>; body: string }> {
  const text = await new Promise<string>((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(bytes))
    let data = ''
    socket.setEncoding('utf8')
    socket.on('data', (c: string) => {
      data += c
    })
    socket.on('end', () => resolve(data))
    socket.on('close', () => resolve(data))
    socket.on('error', reject)
  })
  const [head, ...rest] = text.split('\r\n\r\n')
  const [status, ...lines] = head.split('\r\n')
  const headers = Object.fromEntries(
    lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()])
  )
  return { statusCode: Number(status.split(' ')[1]), headers, body: rest.join('\r\n\r\n') }
}

async function listening (t: Test): Promise<{ app: FastifyInstance; port: number }> {
  const app = await buildCoreApp(t, { fastify: { ...svcServerOptions, bodyLimit: 4096 } })
  await app.listen({ port: 0, host: '127.0.0.1' })
  const address = app.server.address()
  return { app, port: typeof address === 'object' && address !== null ? address.port : 0 }
}

t.test('router and body parser refusals render the envelope (inject)', async (t) => {
  const { app } = await listening(t)
  const u = makeUser()
  const json = { ...u.headers, 'content-type': 'application/json' }
  const longId = 'a'.repeat(200)
  const cases: Array<[string, InjectOptions, number, string]> = [
    ['unknown route', { method: 'GET', url: '/nowhere' }, 404, 'NOT_FOUND'],
    [
      'unsupported method on a known path',
      { method: 'PATCH', url: '/api/v1/notes/0123456789abcdef01234567', headers: u.headers },
      404,
      'NOT_FOUND'
    ],
    ['over-long id, no token', { method: 'GET', url: `/api/v1/notes/${longId}` }, 404, 'NOT_FOUND'],
    [
      'over-long id on PUT',
      { method: 'PUT', url: `/api/v1/notes/${longId}`, headers: json, payload: '{}' },
      404,
      'NOT_FOUND'
    ],
    [
      'over-long id on DELETE',
      { method: 'DELETE', url: `/api/v1/notes/${longId}`, headers: u.headers },
      404,
      'NOT_FOUND'
    ],
    ['malformed id', { method: 'GET', url: '/api/v1/notes/not-an-id', headers: u.headers }, 404, 'NOT_FOUND'],
    ['undecodable id', { method: 'GET', url: '/api/v1/notes/%E0%A4%A', headers: u.headers }, 404, 'NOT_FOUND'],
    [
      'invalid JSON',
      { method: 'POST', url: '/api/v1/notes', headers: json, payload: '{"body": "x",' },
      400,
      'VALIDATION'
    ],
    ['empty JSON body', { method: 'POST', url: '/api/v1/notes', headers: json, payload: '' }, 400, 'VALIDATION'],
    [
      '__proto__ key',
      { method: 'POST', url: '/api/v1/notes', headers: json, payload: '{"body":"x","__proto__":{"admin":true}}' },
      400,
      'VALIDATION'
    ],
    [
      'wrong content type',
      {
        method: 'POST',
        url: '/api/v1/notes',
        headers: { ...u.headers, 'content-type': 'text/plain' },
        payload: 'body=x'
      },
      415,
      'UNSUPPORTED_MEDIA_TYPE'
    ],
    [
      'form content type',
      {
        method: 'POST',
        url: '/api/v1/notes',
        headers: { ...u.headers, 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'body=x'
      },
      415,
      'UNSUPPORTED_MEDIA_TYPE'
    ],
    [
      'body over the limit',
      { method: 'POST', url: '/api/v1/notes', headers: json, payload: JSON.stringify({ body: 'x'.repeat(8192) }) },
      413,
      'PAYLOAD_TOO_LARGE'
    ],
    ['no token', { method: 'GET', url: '/api/v1/notes' }, 401, 'UNAUTHENTICATED']
  ]
  for (const [label, req, status, code] of cases) {
    const res = await app.inject(req)
    envelope(t, res, status, code, label)
  }
  t.equal(await app.svc.db.collection('notes').countDocuments(), 0, 'nothing was written')
})

t.test('Node HTTP-level refusals are envelopes on the wire (431, 400)', async (t) => {
  const { port } = await listening(t)
  {
    const res = await raw(port, `GET /api/v1/notes HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`)
    envelope(t, res, 431, 'HEADERS_TOO_LARGE', 'header over 16 KB')
  }
  {
    const res = await raw(port, `GET /${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`)
    envelope(t, res, 431, 'HEADERS_TOO_LARGE', 'URL over 16 KB')
  }
  {
    const res = await raw(port, 'THIS IS NOT HTTP\r\n\r\n')
    envelope(t, res, 400, 'VALIDATION', 'garbage request line')
  }
  {
    const res = await raw(port, 'GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n')
    envelope(t, res, 400, 'VALIDATION', 'invalid Content-Length')
  }
  {
    const res = await raw(port, `GET /api/v1/notes/${'b'.repeat(300)} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`)
    envelope(t, res, 404, 'NOT_FOUND', 'over-long id over a socket')
  }
})

t.test('errors from other plugins render the envelope with a table code', async (t) => {
  const FileTooLarge = createError('FST_REQ_FILE_TOO_LARGE', 'request file too large', 413)
  const NotAcceptable = createError('FST_SOMETHING_ELSE', 'not acceptable here', 406)
  const app = await buildCoreApp(t, {
    fastify: svcServerOptions,
    plugins: [
      async (child) => {
        child.get('/plugin/too-large', async () => {
          throw new FileTooLarge()
        })
        child.get('/plugin/not-acceptable', async () => {
          throw new NotAcceptable()
        })
        child.get('/plugin/method', async () => {
          throw Object.assign(new Error('use POST'), { statusCode: 405 })
        })
      }
    ]
  })
  envelope(
    t,
    await app.inject({ method: 'GET', url: '/plugin/too-large' }),
    413,
    'PAYLOAD_TOO_LARGE',
    'multipart-style 413'
  )
  envelope(
    t,
    await app.inject({ method: 'GET', url: '/plugin/not-acceptable' }),
    406,
    'VALIDATION',
    'a 4xx without a table code'
  )
  envelope(t, await app.inject({ method: 'GET', url: '/plugin/method' }), 405, 'METHOD_NOT_ALLOWED', '405')
})
