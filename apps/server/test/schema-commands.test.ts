import t from 'tap'
import { getTestDb, signToken } from '@svc/testkit'
import { buildServer } from '../src/build-server.js'
import { loadConfig } from '../src/config.js'
import { schemaApply } from '../src/commands/schema-apply.js'
import { PLAN_BLOCKED, schemaPlan } from '../src/commands/schema-plan.js'
import type { CommandIo } from '../src/commands/schema-app.js'
import { evolutionWorkspace, removeWorkspace } from './fixtures/evolution-example.js'

const SECRET = 'schema-commands-secret-0123456789abcdef'

function capture (tty: boolean): CommandIo & { out: () => string; err: () => string } {
  let out = ''
  let err = ''
  return {
    stdout: {
      write: (s: string) => {
        out += s
      }
    },
    stderr: {
      write: (s: string) => {
        err += s
      }
    },
    tty,
    out: () => out,
    err: () => err
  }
}

t.test(
  'the README example: plan names the change and its records, apply backfills them with audit rows, the next start serves',
  async (t) => {
    const ws = evolutionWorkspace()
    t.teardown(() => {
      removeWorkspace(ws)
    })
    const { db, uri } = await getTestDb(t)
    const env = { NODE_ENV: 'test', JWT_SECRET: SECRET, SCHEMA_DIR: ws.schemaDir, MONGODB_URI: uri }
    const config = (): NonNullable<ReturnType<typeof loadConfig>['config']> =>
      loadConfig({ ...env, SCHEMA_CHECK: 'refuse' }).config!
    const countries = ['DE', 'US', 'JP', 'BR', 'XX']
    {
      const app = await buildServer(config(), { db, logger: false })
      await app.ready()
      // Through the service (the API's own path), not inject: on a loaded machine the surface's
      // load shedding may answer 503 to HTTP requests, which says nothing about evolution.
      const deals = app.svc.services.get('deals')
      for (const [i, tenant] of ['ana', 'bo', 'cy'].entries()) {
        const ctx = { identity: { kind: 'user' as const, userId: tenant, roles: ['user'] }, surface: 'rest' as const }
        for (let k = 0; k < 4 + i; k++) {
          await deals.create(ctx, {
            title: `${tenant} ${k}`,
            amount: 100 * k,
            ...(countries[k] !== undefined ? { country: countries[k] } : {})
          })
        }
      }
      await app.close()
    }
    ws.release()
    await t.rejects(
      async () => {
        const app = await buildServer(config(), { db, logger: false })
        t.teardown(async () => await app.close())
      },
      /pending migrations: 0001-backfill-region/,
      'the release does not start before the migration ran'
    )
    {
      const io = capture(false)
      t.equal(await schemaPlan({}, env, io), PLAN_BLOCKED, 'plan exits 3 while a production start would refuse')
      const text = io.out()
      t.match(text, /^Schema plan: the files \([0-9a-f]{12}\) against the snapshot served \S+ \([0-9a-f]{12}\)\n/)
      t.match(text, /Records checked: a sample of up to 5,000 per resource \(estimates marked ~\)/)
      t.match(
        text,
        /\nv1\/deals\n {2}needs data {5}field region added: required, no default \(stored records lack it; creates must send it\)\n/
      )
      t.match(
        text,
        /\n {17}15 records in 3 tenants do not fit \(all 15 read\)\n {17}e\.g\. record [0-9a-f]{24} \(tenant ana\): region is required\n {17}after the pending migrations: 0 records in 0 tenants\n {17}also needs a version/
      )
      t.match(
        text,
        /Migrations: 0 applied\n {2}pending 0001-backfill-region \(v1\/deals\) — deals get a region from their country\n/
      )
      t.match(
        text,
        /Start-up in production: refused \(SCHEMA_CHECK=warn serves anyway\):\n {2}- pending migrations: 0001-backfill-region/
      )
    }
    {
      const io = capture(false)
      await schemaPlan({ json: true, exact: true, maxSeconds: 30 }, env, io)
      const plan = JSON.parse(io.out())
      t.match(plan.changes, [
        { kind: 'field-added', field: 'region', impact: { failing: 15, tenants: 3, exact: true } }
      ])
      t.equal(plan.check.exact, true)
    }
    {
      const io = capture(true)
      t.equal(await schemaApply({ dryRun: true, samples: 2, json: false }, env, io), 0)
      t.match(
        io.out(),
        /^Dry run of 0001-backfill-region: nothing was written\.\n {2}v1\/deals: 3 tenants, 15 records read, 15 would change, 0 unchanged, 0 already migrated\n/
      )
      t.match(
        io.out(),
        /Samples \(before → after\):\n {2}record [0-9a-f]{24} \(tenant ana\)\n {4}0001-backfill-region:\n {6}region: \(none\) → "emea"\n/
      )
      t.match(
        io.err(),
        /v1\/deals \[.*\] 100% \| 15\/15 records \| tenant cy \(3\/3\) \| \d+\/s \| migrated 15/,
        'a progress bar on a terminal'
      )
      t.equal(await db.collection('deals').countDocuments({ region: { $exists: true } }), 0, 'a dry run writes nothing')
    }
    {
      const io = capture(false)
      t.equal(await schemaApply({ batchSize: 2, rate: 0 }, env, io), 0)
      const lines = io
        .out()
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l))
      t.ok(lines.length > 5, 'JSON lines when stderr is no terminal')
      t.match(lines[0], {
        type: 'progress',
        resource: 'v1/deals',
        migrations: ['0001-backfill-region'],
        tenant: 'ana',
        tenants: 3,
        total: 15
      })
      t.match(lines.at(-1), {
        type: 'result',
        pending: ['0001-backfill-region'],
        applied: ['0001-backfill-region'],
        resources: [{ migrated: 15 }]
      })
    }
    t.equal(await db.collection('deals').countDocuments({ country: 'JP', region: 'apac' }), 3)
    t.equal(
      await db.collection('deals').countDocuments({ country: { $nin: ['JP', 'US', 'BR'] }, region: 'emea' }),
      6,
      'DE, unknown and missing countries: emea'
    )
    const rows = await db.collection('audit_log').find({ action: 'migrate' }).toArray()
    t.equal(rows.length, 15, 'one audit row per migrated record')
    t.ok(rows.every((r) => r.migration === '0001-backfill-region' && r.actor.kind === 'system'))
    {
      const io = capture(false)
      t.equal(await schemaPlan({}, env, io), 0, 'nothing blocks once the migration ran')
      t.match(io.out(), /every stored record fits \(all 15 read\)/)
      t.match(io.out(), /Migrations: 1 applied, none pending/)
    }
    {
      const io = capture(true)
      await schemaApply({}, env, io)
      t.equal(io.out(), 'No pending migration.\n')
    }
    const app = await buildServer(config(), { db, logger: false })
    t.teardown(async () => await app.close())
    await app.ready()
    const authorization = `Bearer ${signToken({ user_id: 'ana', email: 'ana@example.test', roles: ['user'] }, SECRET)}`
    const res = await app.inject({
      method: 'POST',
      url: '/api/v1/deals',
      headers: { authorization },
      payload: { title: 'new', country: 'DE' }
    })
    t.equal(res.statusCode, 400, 'creates must send region now')
    const list = await app.inject({
      method: 'GET',
      url: '/api/v1/deals?__perPage=1&region=americas',
      headers: { authorization }
    })
    t.equal(list.json().totalResults, 2, 'ana has two deals in the americas (US, BR)')
    t.equal(
      await app.svc.evolution.snapshot().then((s) => s?.hash),
      (await app.svc.evolution.plan()).files.hash,
      'the start advanced the snapshot'
    )
  }
)
