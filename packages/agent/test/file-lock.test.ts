import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { openStore } from '../src/index.js'
import { FileStore } from '../src/kit.js'

// Issue 22: after SIGKILL the file store's lock was taken as alive for 30 s, so a supervisor's
// immediate restart failed with "in use by another process".

const HOLDER = fileURLToPath(new URL('./fixtures/hold-store.ts', import.meta.url))
const dir = mkdtempSync(join(tmpdir(), 'svc-agent-lock-'))
t.teardown(() => rmSync(dir, { recursive: true, force: true }))

interface Holder {
  child: ChildProcess
  said: Promise<string>
}

function holder (path: string): Holder {
  // No coverage for the child (a killed child writes none, so the figure would swing).
  const child = spawn(process.execPath, ['--conditions=@svc/source', '--import', 'tsx', HOLDER, path], {
    env: { ...process.env, _TAPJS_PROCESSINFO_COVERAGE_: '0' },
    stdio: ['pipe', 'pipe', 'inherit']
  })
  const said = new Promise<string>((resolve) => {
    let out = ''
    child.stdout?.on('data', (c: Buffer) => {
      out += c.toString()
      if (out.includes('\n')) resolve(out.trim())
    })
    child.on('exit', () => resolve(out.trim()))
  })
  t.teardown(() => {
    child.kill('SIGKILL')
  })
  return { child, said }
}

const exited = async (child: ChildProcess): Promise<void> => {
  if (child.exitCode == null && child.signalCode == null) await new Promise((resolve) => child.once('exit', resolve))
}

t.test('SIGKILL, then an immediate restart on the same file', async (t) => {
  const path = join(dir, 'killed.json')
  const first = holder(path)
  t.equal(await first.said, 'holding')
  await t.rejects(
    FileStore.open(path),
    /in use by another process, held by process \d+ on /,
    'a live owner is respected'
  )
  first.child.kill('SIGKILL')
  await exited(first.child)
  const started = Date.now()
  const store = await openStore(`file:${path}`)
  t.ok(Date.now() - started < 10_000, `reopened at once (${Date.now() - started} ms), not after the 30 s staleness`)
  t.equal(
    (await store.get(`default:http:${String(first.child.pid)}`))?.refreshToken,
    `r-${String(first.child.pid)}`,
    'what the killed process wrote is there'
  )
  await store.close()

  const again = holder(path)
  t.equal(await again.said, 'holding', 'a restarted process opens it too')
  again.child.stdin?.write('exit\n')
  await exited(again.child)
  t.equal(again.child.exitCode, 0)
})

t.test("four restarts racing for a dead owner's lock: exactly one wins", async (t) => {
  const path = join(dir, 'raced.json')
  const dead = holder(path)
  await dead.said
  dead.child.kill('SIGKILL')
  await exited(dead.child)
  const racers = [holder(path), holder(path), holder(path), holder(path)]
  const said = await Promise.all(racers.map(async (r) => await r.said))
  t.equal(said.filter((s) => s === 'holding').length, 1, said.join(' | '))
  t.equal(said.filter((s) => s.startsWith('refused') && s.includes('in use by another process')).length, 3)
})

t.test('locks of other hosts and of this pid', async (t) => {
  const path = join(dir, 'foreign.json')
  writeFileSync(`${path}.lock`, JSON.stringify({ pid: 1, host: 'another-host', id: 'x' }))
  await t.rejects(
    FileStore.open(path),
    /held by process 1 on another-host/,
    'a fresh lock from another host is respected'
  )
  const old = new Date(Date.now() - 31_000)
  utimesSync(`${path}.lock`, old, old)
  const taken = await FileStore.open(path)
  t.match(
    JSON.parse(readFileSync(`${path}.lock`, 'utf8')),
    { pid: process.pid, host: hostname() },
    'its heartbeat stopped 31 s ago: taken over'
  )
  await t.rejects(FileStore.open(path), /held by process \d+/, 'held here: a second open in this process is refused')
  await taken.close()

  const recycled = join(dir, 'recycled.json')
  writeFileSync(`${recycled}.lock`, JSON.stringify({ pid: process.pid, host: hostname(), id: 'an earlier run' }))
  const mine = await FileStore.open(recycled)
  t.pass("a lock naming this pid that this process does not hold is an earlier run's (a container's pid 1)")
  await mine.close()

  const torn = join(dir, 'torn.json')
  writeFileSync(`${torn}.lock`, '')
  utimesSync(`${torn}.lock`, old, old)
  const repaired = await FileStore.open(torn)
  t.pass('an empty lock file (a crash between create and write) is stale once old')
  await repaired.close()
})

t.test('a takeover in progress elsewhere is left to it; one left by a crash is broken', async (t) => {
  const path = join(dir, 'guarded.json')
  const old = new Date(Date.now() - 31_000)
  writeFileSync(`${path}.lock`, JSON.stringify({ pid: 1, host: 'another-host', id: 'gone' }))
  utimesSync(`${path}.lock`, old, old)
  mkdirSync(`${path}.lock.takeover`)
  await t.rejects(FileStore.open(path), /in use by another process/, 'another process is taking over: not this one')
  t.match(JSON.parse(readFileSync(`${path}.lock`, 'utf8')), { id: 'gone' }, 'and the lock it judges is left to it')
  const crashed = new Date(Date.now() - 6000)
  utimesSync(`${path}.lock.takeover`, crashed, crashed)
  const store = await FileStore.open(path)
  t.match(JSON.parse(readFileSync(`${path}.lock`, 'utf8')), { pid: process.pid }, 'a guard 6 s old is broken')
  t.notOk(existsSync(`${path}.lock.takeover`), 'and removed')
  await store.close()
})

t.test('a process whose lock was taken over stops writing', async (t) => {
  const path = join(dir, 'stolen.json')
  const store = await FileStore.open(path, { heartbeatMs: 30 })
  await store.set('default:http:1', { refreshToken: 'r', userId: 'u', linkedAt: 'now' })
  writeFileSync(`${path}.lock`, JSON.stringify({ pid: 1, host: 'another-host', id: 'thief' }))
  await new Promise((resolve) => setTimeout(resolve, 120))
  await t.rejects(
    store.set('default:http:2', { refreshToken: 'r', userId: 'u', linkedAt: 'now' }),
    /lost the lock on .*stolen\.json; not writing/
  )
  await store.close()
  t.match(
    JSON.parse(readFileSync(`${path}.lock`, 'utf8')),
    { id: 'thief' },
    'closing does not remove a lock it no longer owns'
  )
})
