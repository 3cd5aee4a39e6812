import t, { type Test } from 'tap'
import { spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { ObjectId, type Db } from 'mongodb'
import { getStandaloneTestDb, getTestDb } from '@svc/testkit'
import { BIN } from './fixtures/svc-process.js'

// `svc schema apply` killed with SIGKILL at arbitrary points (inside a batch's transaction or its
// write-ahead intents, between batches), then run again: every record migrated exactly once —
// its counter at 1 and exactly one audit row — and none missed. Without a filter, a record the
// killed run migrated is selected again, and only its marker keeps `up` from running twice: the
// case that can fail, so the 100,000-record run has none (and its rerun reads every record).

t.setTimeout(900_000)

const SCHEMA = `export default {
  path: 'deals',
  fields: [
    { name: 'title', type: String, required: true },
    { name: 'country', type: String },
    { name: 'region', type: String, required: true },
    { name: 'migratedTimes', type: Number }
  ]
}
`
/** Counts its runs on each record in `migratedTimes`; `filtered`: only records without a region (the README's shape). */
const migration = (filtered: boolean): string => `export default {
  resources: {
    deals: {${filtered ? '\n      filter: { region: { $exists: false } },' : ''}
      up (deal) {
        deal.region = deal.country === 'US' ? 'americas' : 'emea'
        deal.migratedTimes = (deal.migratedTimes ?? 0) + 1
      }
    }
  }
}
`

function schemaDir (t: Test, filtered: boolean): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-sigkill-'))
  t.teardown(() => {
    rmSync(dir, { recursive: true, force: true })
  })
  mkdirSync(join(dir, 'versions', 'v1'), { recursive: true })
  mkdirSync(join(dir, 'migrations'))
  writeFileSync(join(dir, 'versions', 'v1', 'deals.mjs'), SCHEMA)
  writeFileSync(join(dir, 'migrations', '0001-backfill-region.mjs'), migration(filtered))
  return dir
}

async function seed (db: Db, records: number, tenants: number): Promise<void> {
  const at = new Date()
  for (let i = 0; i < records; i += 10_000) {
    await db.collection('deals').insertMany(
      Array.from({ length: Math.min(10_000, records - i) }, (_, k) => ({
        _id: new ObjectId(),
        title: `deal ${i + k}`,
        country: (i + k) % 3 === 0 ? 'US' : 'DE',
        userId: `tenant-${(i + k) % tenants}`,
        createdAt: at,
        updatedAt: at
      })),
      { ordered: false }
    )
  }
}

/** The environment `svc schema apply` runs in: the database at `uri`, a fresh schema directory, no coverage. */
function applyEnv (t: Test, uri: string, filtered: boolean): NodeJS.ProcessEnv {
  return {
    ...process.env,
    _TAPJS_PROCESSINFO_COVERAGE_: '0',
    NODE_ENV: 'test',
    JWT_SECRET: 'sigkill-secret-0123456789abcdef0123',
    SCHEMA_DIR: schemaDir(t, filtered),
    MONGODB_URI: uri
  }
}

interface Run {
  code: number | null
  signal: string | null
  lines: Array<Record<string, unknown>>
}

/** `svc schema apply --json`; with `killAt`, SIGKILL once that many records were migrated, after a random pause. */
async function apply (env: NodeJS.ProcessEnv, killAt?: number): Promise<Run> {
  const child = spawn(process.execPath, [BIN, 'schema', 'apply', '--rate', '0', '--batch-size', '1000', '--json'], {
    env,
    stdio: ['ignore', 'pipe', 'pipe']
  })
  const lines: Array<Record<string, unknown>> = []
  let stderr = ''
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString()
  })
  let killing = false
  createInterface({ input: child.stdout }).on('line', (line) => {
    const msg = JSON.parse(line) as Record<string, unknown>
    lines.push(msg)
    if (killAt !== undefined && !killing && msg.type === 'progress' && (msg.migrated as number) >= killAt) {
      killing = true
      setTimeout(() => child.kill('SIGKILL'), Math.floor(Math.random() * 400))
    }
  })
  return await new Promise((resolve) =>
    child.on('exit', (code, signal) => {
      // A run that ended on its own where it should have been killed, or failed, says why.
      if (signal === null && (code !== 0 || killAt !== undefined)) process.stderr.write(stderr)
      resolve({ code, signal, lines })
    })
  )
}

/**
 * A kill between a batch's commit and its checkpoint leaves records migrated past the checkpoint;
 * SIGKILL hits that window by chance only, so the test widens it to every record: the checkpoints
 * go, and the rerun reads each record again. Answers how many the killed runs migrated.
 */
async function forgetCheckpoints (db: Db): Promise<number> {
  await db.collection('svc_migration_progress').deleteMany({})
  return await db.collection('deals').countDocuments({ migratedTimes: 1 })
}

/** Records a run read again and left alone because a killed run had migrated them (their markers). */
const skippedBy = (run: Run): number =>
  (run.lines.at(-1)!.resources as Array<{ skipped: number }>).reduce((n, r) => n + r.skipped, 0)

async function check (t: Test, db: Db, records: number): Promise<void> {
  const deals = db.collection('deals')
  t.equal(await deals.countDocuments({ region: { $exists: false } }), 0, 'no record missed')
  t.equal(await deals.countDocuments({ migratedTimes: 1 }), records, 'every record migrated exactly once')
  t.equal(await deals.countDocuments({ migratedTimes: { $gt: 1 } }), 0, 'none twice')
  const rows = db.collection('audit_log')
  t.equal(
    await rows.countDocuments({ action: 'migrate', migration: '0001-backfill-region' }),
    records,
    'one audit row per migrated record'
  )
  const twice = await rows
    .aggregate([
      { $match: { action: 'migrate' } },
      { $group: { _id: '$recordId', n: { $sum: 1 } } },
      { $match: { n: { $gt: 1 } } },
      { $count: 'records' }
    ])
    .toArray()
  t.same(twice, [], 'no record has two rows')
  t.equal(await db.collection('svc_migration_marks').countDocuments(), 0, 'markers removed once done')
  t.match(await db.collection('svc_migrations').findOne({ _id: '0001-backfill-region' as never }), { status: 'done' })
  t.equal(await db.collection('svc_migrations').countDocuments({ _id: '#apply-lock' as never }), 0, 'the lock released')
}

t.test(
  'SIGKILL twice during apply on 100,000 records of 100 tenants (transactions, no filter), then a rerun',
  async (t) => {
    const { db, client, uri } = await getTestDb(t)
    // A batch's transaction killed with its client stays open (holding its records) until the
    // server's transaction lifetime ends; 20 s instead of 60 keeps the rerun's wait short. (5 s
    // left a live batch little margin — 1,000 records with their audit rows in one transaction,
    // the server in this test process, under CI's four suites on two cores — and a first run once
    // exited having migrated nothing.)
    const admin = client.db('admin')
    await admin.command({ setParameter: 1, transactionLifetimeLimitSeconds: 20 })
    t.teardown(async () => {
      await admin.command({ setParameter: 1, transactionLifetimeLimitSeconds: 60 })
    })
    const records = 100_000
    await seed(db, records, 100)
    const env = applyEnv(t, uri, false)
    for (const killAt of [15_000, 40_000]) {
      const run = await apply(env, killAt)
      t.equal(
        run.signal,
        'SIGKILL',
        `killed past ${killAt} records (else: exit code ${run.code}, last line ${JSON.stringify(run.lines.at(-1))})`
      )
      const done = await db.collection('deals').countDocuments({ migratedTimes: 1 })
      t.ok(done >= killAt && done < records, `part of the records were migrated (${done})`)
    }
    const migrated = await forgetCheckpoints(db)
    const last = await apply(env)
    t.equal(last.code, 0, 'the rerun completes')
    const result = last.lines.at(-1)!
    t.match(result, { type: 'result', applied: ['0001-backfill-region'] })
    t.equal(skippedBy(last), migrated, 'the rerun read them again and skipped each by its marker')
    t.ok(
      last.lines.some((l) => l.type === 'progress' && l.tenant === 'tenant-99'),
      'JSON progress lines, tenant by tenant'
    )
    await check(t, db, records)
  }
)

for (const filtered of [true, false]) {
  t.test(
    `SIGKILL during apply on a standalone server (write-ahead intents, ${filtered ? 'a filter' : 'no filter'}), then a rerun`,
    async (t) => {
      const { db, uri } = await getStandaloneTestDb(t)
      const records = 6000
      await seed(db, records, 20)
      const env = applyEnv(t, uri, filtered)
      const run = await apply(env, 2000)
      t.equal(run.signal, 'SIGKILL')
      const migrated = filtered ? 0 : await forgetCheckpoints(db)
      const last = await apply(env)
      t.equal(last.code, 0, "the rerun completes (settling the killed run's intents first)")
      if (!filtered) t.equal(skippedBy(last), migrated, 'the rerun skipped each record the killed run migrated')
      await check(t, db, records)
    }
  )
}
