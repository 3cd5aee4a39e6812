// `svc schema plan` on a large collection (sampled, then exact) and `svc schema apply` throughput,
// on the reference composition (audit rows included) with the README's worked example: the deals
// schema gains a required `region`, 0001-backfill-region fills it. The database runs in a child
// process (devdb unless MONGODB_URI; apply also on a standalone devdb: write-ahead intents).
// Usage: pnpm --filter @svc/server bench:schema   (BENCH_PLAN_DOCS=1000000, BENCH_APPLY_DOCS=100000, BENCH_TENANTS=100;
// BENCH_PLAN_EXACT=0 skips `plan --exact`, minutes on 1,000,000 records). Each figure carries the load average.
import { spawn } from 'node:child_process'
import { loadavg } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { MongoClient, ObjectId, type Db } from 'mongodb'
import { BenchProcesses, median } from '@svc/testkit/bench'
import { buildServer } from '../src/build-server.js'
import { loadConfig } from '../src/config.js'
import { evolutionWorkspace, removeWorkspace } from '../test/fixtures/evolution-example.js'

const PLAN_DOCS = Number(process.env.BENCH_PLAN_DOCS ?? 1_000_000)
const APPLY_DOCS = Number(process.env.BENCH_APPLY_DOCS ?? 100_000)
const TENANTS = Number(process.env.BENCH_TENANTS ?? 100)
const EXACT = process.env.BENCH_PLAN_EXACT !== '0'
const COUNTRIES = ['DE', 'US', 'JP', 'BR', 'FR', 'GB']
/** The machine's load average (1, 5, 15 min), printed beside each figure: a shared machine skews them. */
const load = (): string =>
  `load ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`

const ws = evolutionWorkspace()
const settings = {
  NODE_ENV: 'test',
  JWT_SECRET: 'bench-secret-0123456789abcdef0123',
  SCHEMA_DIR: ws.schemaDir,
  SCHEMA_CHECK: 'warn',
  LOG_LEVEL: 'silent'
}
const cliEnv = { ...process.env, ...settings }
const BIN = fileURLToPath(new URL('../bin/svc.js', import.meta.url))
const config = (): NonNullable<ReturnType<typeof loadConfig>['config']> => loadConfig(settings).config!

/** `count` deals of the `before` schema over TENANTS tenants, as an earlier release stored them. */
async function seed (db: Db, count: number): Promise<number> {
  const started = Date.now()
  const at = new Date()
  for (let i = 0; i < count; i += 10_000) {
    const docs = Array.from({ length: Math.min(10_000, count - i) }, (_, k) => {
      const n = i + k
      return {
        _id: new ObjectId(),
        title: `deal ${n}`,
        amount: n % 5000,
        country: COUNTRIES[n % COUNTRIES.length],
        userId: `tenant-${n % TENANTS}`,
        createdAt: at,
        updatedAt: at
      }
    })
    await db.collection('deals').insertMany(docs, { ordered: false })
  }
  return Date.now() - started
}

/** Serves `before` once on the empty database: the snapshot a later plan compares with. */
async function serveBefore (db: Db): Promise<void> {
  const app = await buildServer(config(), { db, logger: false })
  await app.ready()
  await app.close()
}

async function maintenanceApp (db: Db): Promise<Awaited<ReturnType<typeof buildServer>>> {
  return await buildServer(config(), { db, logger: false, maintenance: true })
}

const processes = new BenchProcesses()
try {
  const database = await processes.database('svc_bench_evolution')
  console.log(`database: ${database.label}; ${TENANTS} tenants`)
  const client = await new MongoClient(database.uri).connect()
  {
    const db = client.db('svc_bench_evolution_plan')
    await db.dropDatabase()
    await serveBefore(db)
    console.log(
      `plan: seeded ${PLAN_DOCS.toLocaleString('en-US')} records in ${((await seed(db, PLAN_DOCS)) / 1000).toFixed(1)} s`
    )
    ws.release()
    const app = await maintenanceApp(db)
    const times: number[] = []
    for (let round = 0; round < 3; round++) {
      const started = Date.now()
      const plan = await app.svc.evolution.plan()
      times.push(Date.now() - started)
      const region = plan.changes.find((c) => c.field === 'region')!
      if (round === 0) {
        console.log(
          `plan (sampled, ${plan.check.sampleSize} records): region → ~${region.impact!.failing} failing in ≥${region.impact!.tenants} tenants, after the migration ${region.impact!.afterMigrations!.failing}`
        )
      }
    }
    console.log(
      `plan (sampled) on ${PLAN_DOCS.toLocaleString('en-US')} records: ${times.map((ms) => `${(ms / 1000).toFixed(2)} s`).join(', ')} (median ${(median(times) / 1000).toFixed(2)} s; ${load()})`
    )
    if (database.label !== 'MONGODB_URI') {
      // As a user runs it: `svc schema plan` in its own process (start-up, app, plan, output).
      const started = Date.now()
      const code = await new Promise<number | null>((resolve) =>
        spawn(process.execPath, [BIN, 'schema', 'plan'], {
          env: { ...cliEnv, MONGODB_URI: `${database.uri}_plan` },
          stdio: 'ignore'
        }).on('exit', resolve)
      )
      console.log(
        `svc schema plan (the CLI, its own process) on ${PLAN_DOCS.toLocaleString('en-US')} records: ${((Date.now() - started) / 1000).toFixed(2)} s, exit ${String(code)} (${load()})`
      )
    }
    if (EXACT) {
      const started = Date.now()
      const exact = await app.svc.evolution.plan({ exact: true, timeBudgetMs: 600_000 })
      const region = exact.changes.find((c) => c.field === 'region')!
      console.log(
        `plan --exact: ${region.impact!.failing} failing in ${region.impact!.tenants} tenants, ${((Date.now() - started) / 1000).toFixed(1)} s (${Math.round((PLAN_DOCS / (Date.now() - started)) * 1000)} records/s; ${load()})`
      )
    }
    await app.close()
    await db.dropDatabase()
  }
  const bin = join(dirname(fileURLToPath(import.meta.resolve('@svc/devdb'))), '..', 'bin', 'svc-devdb.js')
  const standalone =
    process.env.MONGODB_URI === undefined
      ? (await processes.line([bin, '--port', '0', '--standalone'])).replace(/\/+$/, '')
      : null
  for (const [label, uri] of [
    ['transactions', database.uri],
    ...(standalone !== null ? [['write-ahead intents', `${standalone}/x`]] : [])
  ]) {
    const c = label === 'transactions' ? client : await new MongoClient(uri).connect()
    const db = c.db('svc_bench_evolution_apply')
    await db.dropDatabase()
    ws.release() // idempotent: the files stay `after`
    await seed(db, APPLY_DOCS)
    const app = await maintenanceApp(db)
    const result = await app.svc.evolution.apply({ rate: 0, batchSize: 500 })
    const migrated = result.resources[0].migrated
    const rows = await db.collection('audit_log').countDocuments({ action: 'migrate' })
    console.log(
      `apply (${label}): ${migrated.toLocaleString('en-US')} records in ${(result.ms / 1000).toFixed(1)} s = ${Math.round((migrated / result.ms) * 1000)} records/s (batches of 500, unthrottled; ${rows} audit rows; ${load()})`
    )
    await app.close()
    await db.dropDatabase()
    if (c !== client) await c.close()
  }
  await client.close()
} finally {
  processes.stop()
  removeWorkspace(ws)
}
