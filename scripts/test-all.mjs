#!/usr/bin/env node
// `pnpm test`'s runner: every package's tap suite through turbo (four packages at a time, all of
// them even when one fails), its output passed through untouched, then the failing test points
// (innermost, with their diagnostics), how long each package ran, and one line with the totals of
// every package's tap summary and the packages that failed. The exit code is turbo's.
// Extra arguments go to turbo (`node scripts/test-all.mjs --filter=@svc/core`).
import { spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { failingPoints, formatSpans, packageSpans, summarize } from './test-summary.mjs'

// Failing test points repeated at the end (a CI log may keep only its tail); the rest are above.
const MAX_FAILURES_SHOWN = 8
const root = fileURLToPath(new URL('..', import.meta.url))
// `--log-prefix=task`: every line names its package, so the totals can be attributed;
// `--log-order=stream` (turbo groups a task's lines at its end on GitHub Actions): lines come as
// they are written, so each package's first and last line tell how long it ran.
const args = [
  'run',
  'test',
  '--concurrency=4',
  '--continue',
  '--log-prefix=task',
  '--log-order=stream',
  ...process.argv.slice(2)
]
const turbo = spawn('turbo', args, {
  cwd: root,
  stdio: ['inherit', 'pipe', 'inherit'],
  shell: process.platform === 'win32'
})
// Each line with when it came: the summaries read the lines, the package times their arrival.
const timed = []
createInterface({ input: turbo.stdout }).on('line', (line) => {
  process.stdout.write(`${line}\n`)
  timed.push({ line, at: Date.now() })
})
const code = await new Promise((resolve) => {
  turbo.on('error', (err) => {
    console.error(err)
    resolve(1)
  })
  turbo.on('close', (status, signal) => resolve(status ?? (signal != null ? 1 : 0)))
})
const lines = timed.map((t) => t.line)
const failures = failingPoints(lines)
if (failures.length > 0) {
  console.log(`\nfailing test points (${failures.length}):`)
  for (const point of failures.slice(0, MAX_FAILURES_SHOWN)) console.log(point.join('\n'))
  if (failures.length > MAX_FAILURES_SHOWN) console.log(`… and ${failures.length - MAX_FAILURES_SHOWN} more above`)
}
const spans = packageSpans(timed)
if (spans.length > 1) console.log(formatSpans(spans))
console.log(summarize(lines, code).line)
process.exitCode = code
