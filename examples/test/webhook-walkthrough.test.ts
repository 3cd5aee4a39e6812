import t from 'tap'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { REPO_ROOT, run } from './helpers/process.js'

// The root README's "A local receiver, step by step", run as written: the server as
// `NODE_ENV=test npx -y pnpm@10 start` runs it (`node apps/server/bin/svc.js start` from the root,
// on the embedded database), then the README's second block in bash, with only its ports changed
// to free ones. It passes when the receiver prints the verified `contacts.created` event.

async function freePort (): Promise<number> {
  return await new Promise((resolve, reject) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number }
      s.close(() => resolve(port))
    })
    s.on('error', reject)
  })
}

t.test("the README's local webhook walkthrough delivers a signed event to the example receiver", async (t) => {
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8')
  const section = readme.slice(readme.indexOf('### A local receiver, step by step'))
  const [start, steps] = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].slice(0, 2).map((m) => m[1])
  t.match(section.slice(0, 400), /start the server with\s+`NODE_ENV=test`/, 'the setting is stated up front')
  t.match(start, /^NODE_ENV=test npx -y pnpm@10 start\b/, 'and used by the start command')

  const dataDir = mkdtempSync(join(tmpdir(), 'svc-walkthrough-'))
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'test',
    PORT: '0',
    DATA_DIR: dataDir,
    _TAPJS_PROCESSINFO_COVERAGE_: '0'
  }
  delete env.MONGODB_URI
  delete env.JWT_SECRET
  const server = run(t, process.execPath, [join(REPO_ROOT, 'apps', 'server', 'bin', 'svc.js'), 'start'], {
    cwd: REPO_ROOT,
    env
  })
  const [, url] = await server.waitFor(/svc listening on (http:\/\/\S+?)[\s)]/, 90_000)

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
  t.equal(registered.status, 201, 'POST /register (the quick start)')
  const { accessToken } = (await registered.json()) as { accessToken: string }

  const port = String(await freePort())
  const script = steps.replaceAll('localhost:3000', url.replace(/^http:\/\//, '')).replaceAll('4000', port)
  // `&` leaves the receiver running in the script's process group: `wait` keeps the group until
  // the test has seen the event and stops it (detached: the whole group is signalled).
  const walk = run(t, 'bash', ['-c', `set -e\n${script}\nwait`], {
    cwd: REPO_ROOT,
    env: { ...process.env, ACCESS_TOKEN: accessToken },
    detached: true
  })
  // curl prints the created contact without a newline: the receiver's line may follow it on the same line.
  const [line] = await walk.waitFor(/\{"id":"[^"]+","type":"contacts\.created".*\}$/m, 60_000)
  t.match(
    JSON.parse(line),
    { type: 'contacts.created', version: 'v1', record: { firstName: 'Ada', lastName: 'Byron' } },
    'the receiver printed the verified event'
  )
  await walk.stop()
})
