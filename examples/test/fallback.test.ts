import t from 'tap'
import { createServer } from 'node:net'
import { once } from 'node:events'
import { EXAMPLES_DIR, run } from './helpers/process.js'

// `npx -y pnpm@10 --filter @svc/examples start` runs exactly this command in examples/.
const START = ['--import', 'tsx', 'existing-app.ts']

function envWithout (...names: string[]): NodeJS.ProcessEnv {
  const env = { ...process.env }
  for (const n of names) delete env[n]
  return env
}

async function closedPort (): Promise<number> {
  const server = createServer()
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as { port: number }
  server.close()
  await once(server, 'close')
  return port
}

t.test('without MONGODB_URI the example starts on the embedded database and serves', async (t) => {
  const app = run(t, process.execPath, START, {
    cwd: EXAMPLES_DIR,
    env: { ...envWithout('MONGODB_URI', 'JWT_SECRET'), PORT: '0' }
  })
  const [, url] = await app.waitFor(/Server listening at (http:\/\/[^"\s]+)/, 60_000)
  await app.waitFor(/example app on the embedded database, in memory/)
  t.match(app.output(), /JWT_SECRET is unset: using a random secret/, 'the missing secret is a warning, not a crash')

  const hello = await fetch(`${url}/hello`)
  t.same(await hello.json(), { hello: 'world' }, 'GET /hello')
  const registered = await fetch(`${url}/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      first_name: 'Ada',
      last_name: 'Lovelace',
      email: 'ada@example.com',
      password: 'analytical-engine'
    })
  })
  t.equal(registered.status, 201, 'POST /register writes to the embedded database')
  t.equal(await app.stop(), 0, 'SIGTERM closes the app and the embedded database, exit 0')
})

t.test('an unreachable MONGODB_URI is one clear line and exit 1, not a stack', async (t) => {
  const port = await closedPort()
  const started = Date.now()
  const app = run(t, process.execPath, START, {
    cwd: EXAMPLES_DIR,
    env: { ...process.env, MONGODB_URI: `mongodb://127.0.0.1:${port}/example`, JWT_SECRET: 'x'.repeat(32), PORT: '0' }
  })
  const code = await app.exited
  const seconds = (Date.now() - started) / 1000
  t.equal(code, 1, 'exit 1')
  t.match(
    app.output(),
    new RegExp(
      `cannot reach MongoDB at mongodb://127\\.0\\.0\\.1:${port}/example within 5 s .*unset MONGODB_URI to use the embedded database`
    ),
    'says what failed and what to do'
  )
  t.notMatch(app.output(), /\n\s+at /, 'no stack trace')
  t.ok(seconds < 30, `gave up after ${seconds.toFixed(1)} s (server selection is bounded at 5 s)`)
})
