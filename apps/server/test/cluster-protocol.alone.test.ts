import { rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { signToken, userClaims } from '@svc/testkit'
import { TEST_WORKERS, baseEnv, startSvc, stop } from './fixtures/svc-process.js'
import { call, childPids } from './fixtures/fresh-http.js'
import { workspace } from './fixtures/workspace.js'

// Issue 27: a rolling reload forks the workers from the code on disk, which may be another svc
// than the primary's. The primary and its workers check each other's cluster protocol at the
// hello: a mismatch is refused with one log line, and the old workers keep serving. The real
// binary runs; fixtures/cluster-protocol.mjs (preloaded into the primary and the workers) plays
// the other svc by rewriting only the version the hello or the go-ahead names.
t.setTimeout(400_000)

const WORKERS = Number(TEST_WORKERS || 2)
const PRELOAD = fileURLToPath(new URL('./fixtures/cluster-protocol.mjs', import.meta.url))
const SECRET = 'protocol-test-secret-0123456789abcdef'

t.test(
  'a rolling reload onto workers of another cluster protocol is refused; the old workers keep serving',
  async (t) => {
    const ws = workspace()
    const flag = join(ws.root, 'protocol-flag')
    const env = baseEnv(ws, { SVC_WORKERS: String(WORKERS), SVC_TEST_PROTOCOL_FLAG: flag }, SECRET)
    const svc = await startSvc(t, env, 180_000, ['--import', PRELOAD])
    const primary = svc.child.pid!
    const auth = { authorization: `Bearer ${signToken(userClaims({ user_id: '65f0000000000000000000b1' }), SECRET)}` }
    // The JSON log lines so far (a line still being written is left for the next look).
    const lines = (): Array<Record<string, unknown>> =>
      svc
        .stdout()
        .split('\n')
        .flatMap((l) => {
          try {
            return [JSON.parse(l) as Record<string, unknown>]
          } catch {
            return []
          }
        })
    const waitFor = async (what: (l: Record<string, unknown>) => boolean, count: number): Promise<void> => {
      const deadline = Date.now() + 120_000
      while (lines().filter(what).length < count && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
    }
    const refused = (l: Record<string, unknown>): boolean => /protocol/.test(String(l.msg))
    /** The workers once the refused ones have exited (they are stopped, not waited for). */
    const settledWorkers = async (): Promise<number[]> => {
      const deadline = Date.now() + 15_000
      let pids = await childPids(primary)
      while (pids.length > WORKERS && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 100))
        pids = await childPids(primary)
      }
      return pids
    }

    /** SIGHUP with the flag saying `mode`, under load; answers the requests that failed. */
    const reloadUnder = async (
      mode: string,
      until: (l: Record<string, unknown>) => boolean,
      count: number
    ): Promise<string[]> => {
      writeFileSync(flag, mode)
      const failures: string[] = []
      const stopLoad = new AbortController()
      const client = async (n: number): Promise<void> => {
        for (let i = 0; !stopLoad.signal.aborted; i++) {
          const res = await (
            n % 2 === 0
              ? call(svc.url, 'POST', '/api/v1/notes', { body: { title: `${mode}-${n}-${i}` }, headers: auth })
              : call(svc.url, 'GET', '/api/v1/notes?__perPage=5', { headers: auth })
          ).catch((err: Error) => err)
          if (res instanceof Error) failures.push(res.message)
          else if (res.status >= 300) failures.push(`${res.status} ${JSON.stringify(res.body)}`)
        }
      }
      const clients = [0, 1, 2, 3].map(client)
      process.kill(primary, 'SIGHUP')
      await waitFor(until, count)
      stopLoad.abort()
      await Promise.all(clients)
      rmSync(flag, { force: true })
      return failures
    }

    const workers = await childPids(primary)
    t.equal(workers.length, WORKERS)
    {
      const failures = await reloadUnder('next', refused, 1)
      const said = lines().filter(refused)
      t.equal(said.length, 1, 'one log line for the whole reload')
      t.match(said[0], {
        level: 50,
        name: 'svc-primary',
        msg: /^rolling reload refused, the old workers keep serving: the new worker speaks protocol 2, this primary speaks protocol 1: svc on disk is not the svc this primary started with; restart it \(SIGTERM, then start\) to upgrade$/
      })
      t.same(failures, [], 'no request failed')
      t.same(await settledWorkers(), workers, 'the old workers serve on, and only they')
    }
    {
      const failures = await reloadUnder('unversioned', refused, 2)
      t.match(lines().filter(refused)[1], {
        msg: /the new worker speaks an unversioned protocol \(an svc release before versioning\), this primary speaks protocol 1/
      })
      t.same(failures, [])
      t.same(await settledWorkers(), workers, 'still the same workers')
    }
    {
      // A primary of a release before versioning (its go-ahead names no protocol): the new worker refuses.
      const stopped = (l: Record<string, unknown>): boolean => /rolling reload stopped/.test(String(l.msg))
      const failures = await reloadUnder('old-primary', stopped, 1)
      t.match(
        lines().find((l) => l.name === 'svc-worker'),
        {
          level: 50,
          msg: /^worker refused to start: this worker speaks protocol 1, its primary an unversioned protocol/
        }
      )
      t.ok(lines().some(stopped), 'the reload stops and the old workers keep serving')
      t.same(failures, [])
      t.same(await settledWorkers(), workers)
    }
    {
      const done = (l: Record<string, unknown>): boolean => l.msg === 'rolling reload done'
      const failures = await reloadUnder('', done, 1)
      t.ok(lines().some(done), 'the same protocol on both sides: the reload goes through')
      t.same(failures, [])
      const after = await childPids(primary)
      t.equal(after.length, WORKERS)
      t.same(
        after.filter((pid) => workers.includes(pid)),
        [],
        'every worker replaced'
      )
    }
    t.equal(await stop(svc), 0, 'the primary stops cleanly')
  }
)
