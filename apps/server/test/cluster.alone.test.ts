import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import t from 'tap'
import { signToken, userClaims } from '@svc/testkit'
import { BIN, TEST_WORKERS, baseEnv, startSvc, stop } from './fixtures/svc-process.js'
import { call, childPids } from './fixtures/fresh-http.js'
import { workspace } from './fixtures/workspace.js'

// Issue 27: SVC_WORKERS makes `svc start` a cluster primary. One cluster (two workers, the
// machine's cores; SVC_TEST_WORKERS under `test:workers`) for the whole file: its start-up is the
// slow part. Requests go on fresh connections, as a load balancer's would, so the primary spreads
// them over the workers.
t.setTimeout(400_000)

const WORKERS = Number(TEST_WORKERS || 2)
const IDS = Array.from({ length: WORKERS }, (_, i) => String(i + 1))

const SECRET = 'cluster-test-secret-0123456789abcdef'

t.test(`${WORKERS} workers on one port: spread, replaced after SIGKILL, reloaded, drained`, async (t) => {
  const ws = workspace()
  const env = baseEnv(ws, { SVC_WORKERS: String(WORKERS) }, SECRET)
  const svc = await startSvc(t, env, 180_000)
  const primary = svc.child.pid!
  t.match(
    svc.stderr(),
    new RegExp(
      `svc listening on http://127\\.0\\.0\\.1:\\d+ \\(${WORKERS} workers, embedded database in .*, shared by the workers\\)`
    )
  )
  const auth = { authorization: `Bearer ${signToken(userClaims({ user_id: '65f0000000000000000000a1' }), SECRET)}` }
  const workerOf = (a: { headers: Record<string, unknown> }): string => String(a.headers['x-svc-worker'])

  {
    const seen = new Set<string>()
    let previous = ''
    let alternated = 0
    for (let i = 0; i < 6; i++) {
      const res = await call(svc.url, 'GET', '/healthz')
      t.equal(res.status, 200, 'GET /healthz')
      if (previous !== '' && workerOf(res) !== previous) alternated++
      previous = workerOf(res)
      seen.add(previous)
    }
    t.same([...seen].sort(), IDS, 'every worker answers, each naming itself in x-svc-worker')
    t.ok(alternated >= 4, `consecutive requests reach different workers (${alternated} changes in 6)`)
  }
  {
    // A token signed for one worker is good on the others: one JWT_SECRET, one database.
    const made = await call(svc.url, 'POST', '/api/v1/notes', { body: { title: 'first' }, headers: auth })
    t.equal(made.status, 201, 'POST /api/v1/notes')
    let read = await call(svc.url, 'GET', `/api/v1/notes/${String(made.body._id)}`, { headers: auth })
    for (let i = 0; i < WORKERS && workerOf(read) === workerOf(made); i++) {
      read = await call(svc.url, 'GET', `/api/v1/notes/${String(made.body._id)}`, { headers: auth })
    }
    t.not(workerOf(read), workerOf(made), 'read back on another worker')
    t.equal(read.status, 200, 'the other worker reads the record')
  }

  await t.test('SIGKILL of a worker under load: no acknowledged write lost, worker replaced', async (t) => {
    const acked: string[] = []
    // Shared with the writers, which run concurrently: objects, so the waits below see their updates.
    const tally = { refused: 0 }
    const stopWriting = new AbortController()
    const writer = async (n: number): Promise<void> => {
      for (let i = 0; !stopWriting.signal.aborted; i++) {
        const res = await call(svc.url, 'POST', '/api/v1/notes', {
          body: { title: `w${n}-${i}` },
          headers: auth
        }).catch(() => null)
        if (res?.status === 201) acked.push(String(res.body._id))
        else tally.refused++
      }
    }
    const writers = [0, 1, 2, 3].map(writer)
    while (acked.length < 20 && tally.refused < 100) await new Promise((resolve) => setTimeout(resolve, 20))
    const [victim] = await childPids(primary)
    t.comment(`killing worker pid ${victim} after ${acked.length} acknowledged writes`)
    process.kill(victim, 'SIGKILL')
    const killedAt = acked.length
    // Keep writing until the replacement (the next worker id) answers.
    const deadline = Date.now() + 60_000
    let replaced = false
    while (!replaced && Date.now() < deadline) {
      const res = await call(svc.url, 'GET', '/healthz').catch(() => null)
      replaced = res != null && workerOf(res) === String(WORKERS + 1)
    }
    stopWriting.abort()
    await Promise.all(writers)
    t.ok(replaced, `a replacement worker (x-svc-worker: ${WORKERS + 1}) answers`)
    t.ok(
      acked.length > killedAt,
      `writes went on after the kill (${killedAt} → ${acked.length}; ${tally.refused} cut off)`
    )
    t.notOk((await childPids(primary)).includes(victim), 'the killed worker is gone')
    t.equal((await childPids(primary)).length, WORKERS, `${WORKERS} workers again`)
    let missing = 0
    for (const id of acked) {
      const res = await call(svc.url, 'GET', `/api/v1/notes/${id}`, { headers: auth })
      if (res.status !== 200) missing++
    }
    t.equal(missing, 0, `all ${acked.length} acknowledged writes are stored`)
  })

  await t.test('svc reload under load: workers replaced one at a time, 0 failed requests', async (t) => {
    const before = await childPids(primary)
    const failures: string[] = []
    let done = 0
    const stopLoad = new AbortController()
    const client = async (n: number): Promise<void> => {
      for (let i = 0; !stopLoad.signal.aborted; i++) {
        const res =
          n % 2 === 0
            ? await call(svc.url, 'POST', '/api/v1/notes', { body: { title: `r${n}-${i}` }, headers: auth }).catch(
              (err: Error) => err
            )
            : await call(svc.url, 'GET', '/api/v1/notes?__perPage=5', { headers: auth }).catch((err: Error) => err)
        if (res instanceof Error) failures.push(res.message)
        else if (res.status >= 300) failures.push(`${res.status} ${JSON.stringify(res.body)}`)
        else done++
      }
    }
    const clients = [0, 1, 2, 3].map(client)
    const { stdout } = await promisify(execFile)(process.execPath, [BIN, 'reload'], { env })
    t.match(stdout, `reload requested from svc primary ${primary}`, 'svc reload finds the primary by its pid file')
    const deadline = Date.now() + 120_000
    while (!svc.stdout().includes('rolling reload done') && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    stopLoad.abort()
    await Promise.all(clients)
    t.ok(svc.stdout().includes('rolling reload done'), 'the primary reports the reload done')
    const after = await childPids(primary)
    t.equal(after.length, WORKERS, `still ${WORKERS} workers`)
    t.same(
      after.filter((pid) => before.includes(pid)),
      [],
      'every worker was replaced'
    )
    t.ok(done > 0, `${done} requests answered during the reload`)
    t.same(failures, [], 'no request failed')
  })

  await t.test('SIGTERM drains every worker and stops the database', async (t) => {
    const workers = await childPids(primary)
    t.equal(await stop(svc), 0, 'the primary exits 0')
    t.same(
      workers.filter((pid) => existsSync(`/proc/${pid}`)),
      [],
      'no worker is left running'
    )
    t.match(svc.stdout(), /"why":"drain"/, 'workers left on the drain message')
    t.notOk(existsSync(join(ws.dataDir, 'svc-primary.pid')), 'the pid file goes with the primary')
  })
})

t.test('svc reload without a running primary fails with a hint', async (t) => {
  const ws = workspace()
  const res = await promisify(execFile)(process.execPath, [BIN, 'reload'], { env: baseEnv(ws) }).then(
    () => null,
    (e: { code: number; stderr: string }) => e
  )
  t.equal(res?.code, 1)
  t.match(res?.stderr, /no running svc primary found .*svc-primary\.pid; reload needs SVC_WORKERS above 1/)
})
