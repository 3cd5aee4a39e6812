import t from 'tap'
import { spawn } from 'node:child_process'
import { isDeepStrictEqual } from 'node:util'
import * as path from 'node:path'
import { fileURLToPath } from 'node:url'
import { INTENTS_COLLECTION, toJson } from '@svc/core/kit'
import { DURABLE_MODES, getTestDb } from '@svc/testkit'

const here = path.dirname(fileURLToPath(import.meta.url))
const fixture = path.join(here, 'fixtures', 'crash-app.ts')
const ROUNDS = 3
/** The child records no coverage: a SIGKILLed process's coverage would be partial and skew the package's. */
const childEnv = { ...process.env, _TAPJS_PROCESSINFO_COVERAGE_: '0' }

/** Runs the fixture; in `write` mode kills it with SIGKILL `killAfterMs` after it is ready. */
async function run (uri: string, transactions: boolean, mode: 'write' | 'settle', killAfterMs = 0): Promise<number> {
  const child = spawn(process.execPath, ['--conditions=@svc/source', '--import', 'tsx', fixture], {
    cwd: path.join(here, '..'),
    env: { ...childEnv, DB_URI: uri, MODE: mode, WORKERS: '6', TRANSACTIONS: String(transactions) },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  let out = ''
  let err = ''
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    out += d
  })
  child.stderr.setEncoding('utf8').on('data', (d: string) => {
    err += d
  })
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal }))
  )
  if (mode === 'settle') {
    const { code } = await exited
    if (code !== 0 || !out.includes('settled')) throw new Error(`settle run failed (${String(code)}): ${err}`)
    return 0
  }
  const deadline = Date.now() + 60_000
  while (!out.includes('ready\n')) {
    if (Date.now() > deadline || child.exitCode !== null) {
      child.kill('SIGKILL')
      throw new Error(`fixture did not start: ${err}`)
    }
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  // Write for killAfterMs, and until at least 100 operations finished (a loaded machine is slow).
  const started = Date.now()
  const ops = (): number => out.length - out.indexOf('ready\n') - 6
  while (Date.now() - started < killAfterMs || (ops() < 100 && Date.now() - started < 60_000)) {
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  child.kill('SIGKILL')
  const { signal } = await exited
  if (signal !== 'SIGKILL') throw new Error(`fixture ended by itself: ${err}`)
  return ops()
}

type Row = {
  action: string
  recordId: string
  before: Record<string, unknown> | null
  after: Record<string, unknown> | null
}
const key = (img: Record<string, unknown> | null): string => (img === null ? 'none' : String(img.updatedAt))

/**
 * One record's rows must form one chain from its create to its current state: each step's
 * `before` is the previous step's `after` (a PUT that moves a state writes an `update` and a
 * `transition` row for one step). A missing row breaks the chain; a row of a write that did not
 * happen forks it or leaves it dangling.
 */
function checkChain (rows: Row[], current: Record<string, unknown> | null): string | null {
  const byBefore = new Map<string, Row[]>()
  for (const r of rows) byBefore.set(key(r.before), [...(byBefore.get(key(r.before)) ?? []), r])
  let at = 'none'
  let last: Record<string, unknown> | null = null
  let used = 0
  for (let guard = 0; guard <= rows.length; guard++) {
    const next = byBefore.get(at)
    if (next === undefined) break
    const steps = new Set(next.map((r) => key(r.after)))
    if (steps.size !== 1) return `fork after state ${at}: ${[...steps].join(', ')}`
    if (next.length > 1 && !next.every((r) => r.action === 'update' || r.action === 'transition')) {
      return `two rows for one step at ${at}: ${next.map((r) => r.action).join(', ')}`
    }
    used += next.length
    last = next[0].after
    at = key(last)
    if (last === null) break
  }
  if (used !== rows.length) return `${rows.length - used} row(s) off the chain`
  if (rows.length > 0 && rows[0] !== undefined && !rows.some((r) => r.before === null)) return 'no create row'
  if (!isDeepStrictEqual(last, current)) {
    return `last row's after ${JSON.stringify(last)} is not the record ${JSON.stringify(current)}`
  }
  return null
}

for (const mode of DURABLE_MODES) {
  const transactions = mode.name === 'transactions'
  t.test(
    `${mode.name}: SIGKILL during a stream of writes: every record has its audit rows, no row lacks its write`,
    async (t) => {
      const { db, uri } = await getTestDb(t)
      let total = 0
      for (let round = 0; round < ROUNDS; round++) {
        total += await run(uri, transactions, 'write', 300 + Math.floor(Math.random() * 900))
      }
      await run(uri, transactions, 'settle')
      t.ok(total >= ROUNDS * 100, `${total} operations finished before the kills`)
      if (transactions) {
        t.equal(await db.collection(INTENTS_COLLECTION).countDocuments(), 0, 'no intent was ever written')
      } else {
        t.equal(await db.collection(INTENTS_COLLECTION).countDocuments({ state: 'pending' }), 0, 'every intent settled')
      }

      const rows = await db
        .collection<Row & { path: string }>('audit_log')
        .find({}, { projection: { _id: 0, action: 1, recordId: 1, before: 1, after: 1, path: 1 } })
        .toArray()
      let records = 0
      let broken = 0
      for (const coll of ['notes', 'logs', 'tickets']) {
        const docs = await db.collection(coll).find({}).toArray()
        records += docs.length
        const rowsOf = new Map<string, Row[]>()
        for (const r of rows.filter((x) => x.path === coll)) {
          rowsOf.set(r.recordId, [...(rowsOf.get(r.recordId) ?? []), r])
        }
        const live = new Map(docs.map((d) => [String(d._id), toJson<Record<string, unknown>>(d)]))
        for (const id of new Set([...live.keys(), ...rowsOf.keys()])) {
          const problem = checkChain(rowsOf.get(id) ?? [], live.get(id) ?? null)
          if (problem !== null) {
            broken++
            if (broken <= 5) t.fail(`${coll}/${id}: ${problem}`)
          }
        }
      }
      t.ok(records > 20, `${records} records written across ${ROUNDS} kills`)
      t.equal(broken, 0, "every record's history is exactly its writes")
    }
  )
}
