import t, { type Test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { randomUUID } from 'node:crypto'
import { getTestDb } from '@svc/testkit'
import { buildServer } from '../src/build-server.js'
import { loadConfig } from '../src/config.js'
import { loggerOptions, redactUrl } from '../src/logger.js'
import { baseEnv, startSvc, stop } from './fixtures/svc-process.js'
import { fetchFresh } from './fixtures/fresh-http.js'
import { workspace } from './fixtures/workspace.js'

t.setTimeout(240_000)

interface LogLine {
  level: number
  msg: string
  reqId?: string
  req?: { method: string; url: string }
  res?: { statusCode: number }
  responseTime?: number
}

/** The reference server in-process, its log lines (at the configured LOG_LEVEL) collected as parsed JSON. */
async function serverWithLogLines (
  t: Test,
  env: Record<string, string>
): Promise<{ app: FastifyInstance; lines: LogLine[] }> {
  const { config } = loadConfig({
    NODE_ENV: 'test',
    JWT_SECRET: 'logging-test-secret',
    SCHEMA_DIR: workspace().schemaDir,
    ...env
  })
  if (config == null) throw new Error('test config invalid')
  const { db } = await getTestDb(t)
  const lines: LogLine[] = []
  const logger = {
    ...(loggerOptions(config) as object),
    stream: {
      write: (l: string) => {
        lines.push(JSON.parse(l))
      }
    }
  }
  const app = await buildServer(config, { db, logger })
  t.teardown(async () => await app.close())
  return { app, lines }
}

t.test('svc start: stdout is JSON lines only, the start-up warning once, one line per request', async (t) => {
  // JWT_SECRET unset: the random-secret warning is the start-up warning under test.
  const started = await startSvc(t, baseEnv(workspace(), { JWT_SECRET: '' }))
  const id = randomUUID()
  t.equal((await fetchFresh(`${started.url}/healthz`, { headers: { 'x-request-id': id } })).status, 200)
  const missing = randomUUID()
  t.equal((await fetchFresh(`${started.url}/api/v1/nope`, { headers: { 'x-request-id': missing } })).status, 404)
  t.equal(await stop(started), 0, 'SIGTERM → exit 0')

  const raw = started
    .stdout()
    .split('\n')
    .filter((l) => l !== '')
  const lines: LogLine[] = []
  for (const l of raw) {
    try {
      lines.push(JSON.parse(l))
    } catch {
      t.fail(`plain-text line on stdout: ${l}`)
    }
  }
  t.ok(lines.length > 0, 'the server logged')
  const warnings = lines.filter((l) => /JWT_SECRET is unset/.test(l.msg))
  t.equal(warnings.length, 1, 'the start-up warning is printed once')
  t.equal(warnings[0]?.level, 40, 'at warn level')
  t.match(
    warnings[0]?.msg,
    /tokens stop working at restart \(keep them: JWT_SECRET=\$\(openssl rand -hex 32\)\)/,
    'with the hint'
  )
  t.notMatch(started.stderr(), /JWT_SECRET/, 'and not again as plain text on stderr')
  const ofRequest = lines.filter((l) => l.reqId === id)
  t.equal(ofRequest.length, 1, 'one line for a request')
  t.match(ofRequest[0], {
    level: 30,
    msg: 'request completed',
    req: { method: 'GET', url: '/healthz' },
    res: { statusCode: 200 },
    responseTime: Number
  })
  t.match(
    lines.filter((l) => l.reqId === missing),
    [{ msg: 'request completed', res: { statusCode: 404 } }],
    'a refused request: one line too'
  )
})

t.test('LOG_LEVEL=warn turns request lines off and keeps warnings', async (t) => {
  const { app, lines } = await serverWithLogLines(t, { LOG_LEVEL: 'warn' })
  t.equal((await app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200)
  t.equal((await app.inject({ method: 'GET', url: '/api/v1/notes' })).statusCode, 401)
  app.log.info('info probe')
  app.log.warn('warn probe')
  t.same(
    lines.map((l) => l.msg),
    ['warn probe'],
    'only the warning'
  )
})

t.test('LOG_LEVEL=debug adds the incoming-request line', async (t) => {
  const { app, lines } = await serverWithLogLines(t, { LOG_LEVEL: 'debug' })
  for (const url of ['/healthz', '/nope']) {
    const id = randomUUID()
    await app.inject({ method: 'GET', url, headers: { 'x-request-id': id } })
    const mine = lines.filter((l) => l.reqId === id)
    t.match(mine[0], { level: 20, msg: 'incoming request', req: { url } }, `${url}: incoming at debug`)
    t.match(mine.at(-1), { level: 30, msg: 'request completed', req: { url } }, `${url}: completed at info`)
    t.ok(
      mine.slice(1, -1).every((l) => l.level === 20),
      `${url}: nothing else above debug`
    )
  }
})

t.test("access lines never carry a signed link's signature or a token", async (t) => {
  const { app, lines } = await serverWithLogLines(t, {})
  await app.inject({ method: 'GET', url: '/files/u/notes/f/x.pdf?exp=1999999999&sig=abcdef0123456789' })
  await app.inject({ method: 'GET', url: '/healthz?token=secret-token&x=1' })
  const urls = lines.filter((l) => l.msg === 'request completed').map((l) => l.req?.url)
  t.same(urls, ['/files/u/notes/f/x.pdf?exp=1999999999&sig=[redacted]', '/healthz?token=[redacted]&x=1'])
  t.notMatch(JSON.stringify(lines), /abcdef0123456789|secret-token/, 'the secrets appear nowhere')
  t.equal(
    redactUrl('/a?SIG=1&access_token=2&refresh_token=3#f'),
    '/a?SIG=[redacted]&access_token=[redacted]&refresh_token=[redacted]#f'
  )
  t.equal(redactUrl('/a?design=1&sigma=2'), '/a?design=1&sigma=2', 'only whole parameter names')
})
