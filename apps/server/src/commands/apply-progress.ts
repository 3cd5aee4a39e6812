import { isDeepStrictEqual } from 'node:util'
import cliProgress from 'cli-progress'
import type { ApplyProgress, ApplyResult, MigratedRecord } from '@svc/core/kit'
import type { CommandIo } from './schema-app.js'

export interface ProgressSink {
  update: (p: ApplyProgress) => void
  /** A batch waits for records another write holds (a transaction left open by a killed run). */
  waiting: (w: { resource: string; tenant: string | null; waitedMs: number }) => void
  stop: () => void
}

const WAITING =
  "records held by another write (a transaction left open by a killed run ends within the server's transaction lifetime, 60 s by default)"

const FORMAT =
  '{resource} [{bar}] {percentage}% | {value}/{total} records | tenant {tenant} ({tenantNo}/{tenants}) | {rate}/s | migrated {migrated}'

/** A bar per resource on a terminal's stderr (cli-progress). */
function bar (io: CommandIo): ProgressSink {
  let current: cliProgress.SingleBar | null = null
  let resource = ''
  return {
    update (p) {
      const payload = {
        resource: p.resource,
        tenant: p.tenant ?? '(none)',
        tenantNo: p.tenantIndex + 1,
        tenants: p.tenants,
        rate: p.recordsPerSecond,
        migrated: p.migrated
      }
      if (current === null || resource !== p.resource) {
        current?.stop()
        resource = p.resource
        // Told a terminal is there (io.tty): render even when the stream does not say so itself.
        current = new cliProgress.SingleBar(
          {
            stream: io.stderr as NodeJS.WritableStream,
            format: FORMAT,
            noTTYOutput: true,
            hideCursor: false,
            etaBuffer: 20
          },
          cliProgress.Presets.shades_classic
        )
        current.start(Math.max(p.total, p.scanned), 0, payload)
      }
      current.setTotal(Math.max(p.total, p.scanned))
      current.update(p.scanned, payload)
    },
    waiting (w) {
      // Once per wait, above the bar.
      if (w.waitedMs < 1500) io.stderr.write(`\nwaiting: ${WAITING}\n`)
    },
    stop () {
      current?.stop()
    }
  }
}

/** One JSON object per batch on stdout: `{ type: 'progress', … }`. */
function lines (io: CommandIo): ProgressSink {
  return {
    update (p) {
      io.stdout.write(`${JSON.stringify({ type: 'progress', ...p })}\n`)
    },
    waiting (w) {
      io.stdout.write(`${JSON.stringify({ type: 'waiting', ...w, reason: WAITING })}\n`)
    },
    stop () {}
  }
}

export function progressSink (io: CommandIo, json: boolean): ProgressSink {
  return io.tty && !json ? bar(io) : lines(io)
}

const SYSTEM = new Set(['_id', 'userId', 'accountId', 'createdAt', 'updatedAt', 'deletedAt'])

/** A migrated record's changes, one line per top-level field. */
function recordLines (r: MigratedRecord): string[] {
  const out = [`  record ${r.recordId} (tenant ${String(r.userId)})`]
  for (const img of r.images) {
    out.push(`    ${img.migration}:`)
    for (const k of new Set([...Object.keys(img.before), ...Object.keys(img.after)])) {
      if (SYSTEM.has(k) || isDeepStrictEqual(img.before[k], img.after[k])) continue
      const show = (v: unknown): string => (v === undefined ? '(none)' : JSON.stringify(v))
      out.push(`      ${k}: ${show(img.before[k])} → ${show(img.after[k])}`)
    }
  }
  for (const i of r.issues ?? []) out.push(`    does not fit: ${i.field} ${i.message}`)
  return out
}

/** `svc schema apply` on a terminal: what ran (or would), per resource, and a dry run's samples. */
export function formatApply (r: ApplyResult): string {
  const out: string[] = []
  if (r.pending.length === 0) return 'No pending migration.\n'
  out.push(
    r.dryRun
      ? `Dry run of ${r.pending.join(', ')}: nothing was written.`
      : `Applied: ${r.applied.length > 0 ? r.applied.join(', ') : '(none marked applied: a single tenant ran)'}`
  )
  for (const x of r.resources) {
    out.push(
      `  ${x.resource}: ${x.tenants} tenants, ${x.scanned} records read, ${x.migrated} ${r.dryRun ? 'would change' : 'migrated'}, ${x.unchanged} unchanged, ${x.skipped} already migrated`
    )
  }
  out.push(`  ${(r.ms / 1000).toFixed(1)} s`)
  if (r.samples.length > 0) out.push('', 'Samples (before → after):', ...r.samples.flatMap(recordLines))
  if (r.invalid.length > 0) {
    out.push(
      '',
      'Records that would not fit the schema files (apply stops at the first):',
      ...r.invalid.flatMap(recordLines)
    )
  }
  return `${out.join('\n')}\n`
}
