import t from 'tap'
import type { SchemaPlan } from '@svc/core/kit'
import { formatPlan } from '../src/commands/plan-format.js'
import { processIo } from '../src/commands/schema-app.js'

const base: SchemaPlan = {
  snapshot: null,
  files: { hash: 'a'.repeat(64) },
  changes: [],
  migrations: { applied: ['0001-a'], pending: [], edited: ['0001-a'] },
  migrationFailures: [
    { migration: '0002-b', recordId: 'r1', message: 'migration 0002-b on record r1: up threw: boom' }
  ],
  check: { exact: true, sampleSize: 5000, ms: 1500, partial: false, unchecked: ['v1/notes'] },
  blocking: []
}

t.test('a plan without a snapshot, with duplicates, stranded records and timed-out checks', async (t) => {
  const text = formatPlan({
    ...base,
    changes: [
      {
        resource: 'v1/deals',
        collection: 'deals',
        kind: 'index-added',
        class: 'needs-index',
        needsVersion: false,
        message: 'unique index added',
        duplicates: { groups: 2, records: 5, tenants: 1, example: { key: { userId: 't1', title: 'a' }, count: 3 } }
      },
      {
        resource: 'v1/deals',
        collection: 'deals',
        kind: 'index-added',
        class: 'needs-index',
        needsVersion: false,
        message: 'another index',
        duplicates: { groups: 0, records: 0, tenants: 0, timedOut: true }
      },
      {
        resource: 'v1/deals',
        collection: 'deals',
        kind: 'index-added',
        class: 'needs-index',
        needsVersion: false,
        message: 'a third',
        duplicates: { groups: 0, records: 0, tenants: 0 }
      },
      {
        resource: 'v1/tasks',
        collection: 'tasks2',
        kind: 'collection-changed',
        class: 'needs-data',
        needsVersion: false,
        message: 'collection tasks → tasks2',
        stranded: 40
      },
      {
        resource: 'v1/notes',
        collection: 'notes',
        kind: 'enum-narrowed',
        class: 'needs-data',
        needsVersion: true,
        field: 'stage',
        message: 'stage narrowed',
        impact: {
          total: 1000,
          checked: 100,
          exact: false,
          failing: 120,
          failingRange: [60, 200],
          tenants: 1,
          partial: true
        }
      }
    ]
  })
  t.match(text, /^Schema plan: the files \(aaaaaaaaaaaa\); no snapshot yet/)
  t.match(text, /Records checked: all, 1\.5 s; not checked in time: v1\/notes\n/)
  t.match(text, /5 records in 2 duplicate groups in 1 tenants, e\.g\. \{"userId":"t1","title":"a"\} ×3/)
  t.match(text, /duplicates not counted within the time bound/)
  t.match(text, /a third\n {17}no duplicates/)
  t.match(text, /~40 records in the previous collection/)
  t.match(
    text,
    /~120 records in ≥1 tenant do not fit \(95 %: 60–200\) \(100 of ~1,000 read, stopped at the time bound\)/
  )
  t.match(text, /0001-a changed since it was applied \(it is not run again\)/)
  t.match(text, /fails: migration 0002-b on record r1: up threw: boom/)
  t.match(text, /Start-up in production: starts\.\n$/)
  t.match(formatPlan(base), /\nNo change\.\n/)
})

t.test('the commands write to the process streams', async (t) => {
  const io = processIo()
  t.equal(io.stdout, process.stdout)
  t.equal(io.stderr, process.stderr)
  t.equal(io.tty, process.stderr.isTTY === true)
})
