import type { ChangeClass, SchemaChange, SchemaPlan } from '@svc/core/kit'

const LABEL: Record<ChangeClass, string> = {
  safe: 'safe',
  'needs-data': 'needs data',
  'needs-index': 'needs an index',
  'needs-version': 'needs a version'
}
const n = (x: number): string => x.toLocaleString('en-US')
const PAD = 16

function impactLines (c: SchemaChange): string[] {
  const out: string[] = []
  const i = c.impact
  if (i !== undefined) {
    const about = i.exact ? '' : '~'
    const range = i.failingRange !== undefined ? ` (95 %: ${n(i.failingRange[0])}–${n(i.failingRange[1])})` : ''
    const tenants = `${i.exact ? '' : '≥'}${n(i.tenants)} tenant${i.tenants === 1 ? '' : 's'}`
    const read = i.exact
      ? `all ${n(i.checked)} read`
      : `${n(i.checked)} of ~${n(i.total)} read${i.partial === true ? ', stopped at the time bound' : ''}`
    out.push(
      i.failing === 0
        ? `every stored record fits (${read})`
        : `${about}${n(i.failing)} records in ${tenants} do not fit${range} (${read})`
    )
    if (i.example !== undefined) {
      out.push(`e.g. record ${i.example.recordId} (tenant ${String(i.example.userId)}): ${i.example.message}`)
    }
    if (i.afterMigrations !== undefined) {
      out.push(
        `after the pending migrations: ${about}${n(i.afterMigrations.failing)} records in ${n(i.afterMigrations.tenants)} tenants`
      )
    }
  }
  const d = c.duplicates
  if (d !== undefined) {
    out.push(
      d.timedOut === true
        ? 'duplicates not counted within the time bound (the index build will tell)'
        : d.groups === 0
          ? 'no duplicates'
          : `${n(d.records)} records in ${n(d.groups)} duplicate groups in ${n(d.tenants)} tenants, e.g. ${JSON.stringify(d.example?.key)} ×${d.example?.count ?? 0}`
    )
  }
  if (c.stranded !== undefined) out.push(`~${n(c.stranded)} records in the previous collection`)
  if (c.needsVersion && c.class !== 'needs-version') {
    out.push('also needs a version: existing clients of this version break')
  }
  return out
}

/** `svc schema plan` for a reader: resources, their changes by class, migrations, the start-up verdict. */
export function formatPlan (plan: SchemaPlan): string {
  const lines: string[] = []
  const files = plan.files.hash.slice(0, 12)
  lines.push(
    plan.snapshot === null
      ? `Schema plan: the files (${files}); no snapshot yet (no start-up wrote one): stored records are checked against the files`
      : `Schema plan: the files (${files}) against the snapshot served ${plan.snapshot.servedAt} (${plan.snapshot.hash.slice(0, 12)})`
  )
  const c = plan.check
  lines.push(
    `Records checked: ${c.exact ? 'all' : `a sample of up to ${n(c.sampleSize)} per resource (estimates marked ~)`}, ${(c.ms / 1000).toFixed(1)} s${c.unchecked.length > 0 ? `; not checked in time: ${c.unchecked.join(', ')}` : ''}`
  )
  if (plan.changes.length === 0) lines.push('', 'No change.')
  for (const resource of [...new Set(plan.changes.map((x) => x.resource))]) {
    lines.push('', resource)
    for (const ch of plan.changes.filter((x) => x.resource === resource)) {
      lines.push(`  ${LABEL[ch.class].padEnd(PAD - 1)}${ch.message}`)
      for (const l of impactLines(ch)) lines.push(`  ${''.padEnd(PAD - 1)}${l}`)
    }
  }
  const m = plan.migrations
  lines.push('', `Migrations: ${m.applied.length} applied${m.pending.length === 0 ? ', none pending' : ''}`)
  for (const p of m.pending) {
    lines.push(
      `  pending ${p.name} (${p.resources.join(', ')})${p.description !== undefined ? ` — ${p.description}` : ''}`
    )
  }
  for (const e of m.edited) lines.push(`  ${e} changed since it was applied (it is not run again)`)
  for (const f of plan.migrationFailures) lines.push(`  fails: ${f.message}`)
  lines.push(
    '',
    plan.blocking.length === 0
      ? 'Start-up in production: starts.'
      : 'Start-up in production: refused (SCHEMA_CHECK=warn serves anyway):'
  )
  for (const b of plan.blocking) lines.push(`  - ${b}`)
  return `${lines.join('\n')}\n`
}
