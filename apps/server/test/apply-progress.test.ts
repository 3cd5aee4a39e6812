import t from 'tap'
import type { ApplyResult } from '@svc/core/kit'
import { formatApply, progressSink } from '../src/commands/apply-progress.js'
import type { CommandIo } from '../src/commands/schema-app.js'

function io (tty: boolean): CommandIo & { out: string[]; err: string[] } {
  const out: string[] = []
  const err: string[] = []
  return { stdout: { write: (s: string) => out.push(s) }, stderr: { write: (s: string) => err.push(s) }, tty, out, err }
}

const progress = {
  resource: 'v1/deals',
  migrations: ['0001-a'],
  tenant: null,
  tenantIndex: 0,
  tenants: 1,
  total: 10,
  scanned: 10,
  migrated: 4,
  unchanged: 6,
  skipped: 0,
  elapsedMs: 10,
  recordsPerSecond: 1000
}

t.test("a record held by a killed run's transaction: said once above the bar, or as a JSON line", async (t) => {
  const term = io(true)
  const bar = progressSink(term, false)
  bar.update(progress)
  bar.update({ ...progress, resource: 'v1/notes' })
  bar.waiting({ resource: 'v1/notes', tenant: 't1', waitedMs: 10 })
  bar.waiting({ resource: 'v1/notes', tenant: 't1', waitedMs: 2000 })
  bar.stop()
  const text = term.err.join('')
  t.match(text, /v1\/deals \[.*\] 100% \| 10\/10 records \| tenant \(none\) \(1\/1\)/)
  t.match(text, /v1\/notes \[/, 'a new bar per resource')
  t.equal(text.split('waiting: records held by another write').length, 2, 'once per wait')
  const pipe = io(false)
  const lines = progressSink(pipe, false)
  lines.waiting({ resource: 'v1/deals', tenant: 't1', waitedMs: 1000 })
  lines.stop()
  t.match(JSON.parse(pipe.out[0]), {
    type: 'waiting',
    resource: 'v1/deals',
    tenant: 't1',
    waitedMs: 1000,
    reason: /transaction lifetime/
  })
  t.equal(progressSink(io(true), true).waiting.length, 1, '--json on a terminal: lines too')
})

t.test('the apply summary: a tenant run, and the records that would not fit', async (t) => {
  const base: ApplyResult = {
    pending: ['0001-a'],
    applied: [],
    resources: [
      { resource: 'v1/deals', migrations: ['0001-a'], tenants: 1, scanned: 3, migrated: 2, unchanged: 1, skipped: 0 }
    ],
    dryRun: false,
    samples: [],
    invalid: [],
    ms: 1200
  }
  t.match(
    formatApply(base),
    /^Applied: \(none marked applied: a single tenant ran\)\n {2}v1\/deals: 1 tenants, 3 records read, 2 migrated, 1 unchanged, 0 already migrated\n {2}1\.2 s\n$/
  )
  const bad = {
    recordId: 'abc',
    userId: 't1',
    issues: [{ field: 'region', message: 'is required' }],
    images: [{ migration: '0001-a', before: { _id: 'abc', title: 'x', gone: 1 }, after: { _id: 'abc', title: 'y' } }]
  }
  const text = formatApply({ ...base, dryRun: true, invalid: [bad] })
  t.match(
    text,
    /Records that would not fit the schema files \(apply stops at the first\):\n {2}record abc \(tenant t1\)\n {4}0001-a:\n {6}title: "x" → "y"\n {6}gone: 1 → \(none\)\n {4}does not fit: region is required\n/
  )
})
