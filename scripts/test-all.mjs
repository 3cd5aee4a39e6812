#!/usr/bin/env node
// `pnpm test`'s runner: every package's tap suite through turbo (four packages at a time, all of
// them even when one fails), its output passed through untouched, then the failing test points
// (innermost, with their diagnostics) and one line with the totals of every package's tap
// summary and the packages that failed. The exit code is turbo's.
// Extra arguments go to turbo (`node scripts/test-all.mjs --filter=@svc/core`).
import { spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { failingPoints, summarize } from './test-summary.mjs'

// Failing test points repeated at the end (a CI log may keep only its tail); the rest are above.
const MAX_FAILURES_SHOWN = 8
const root = fileURLToPath(new URL('..', import.meta.url))
// `--log-prefix=task`: every line names its package, also where turbo would group logs without
// prefixes (GitHub Actions), so the totals can be attributed.
const args = ['run', 'test', '--concurrency=4', '--continue', '--log-prefix=task', ...process.argv.slice(2)]
const turbo = spawn('turbo', args, {
  cwd: root,
  stdio: ['inherit', 'pipe', 'inherit'],
  shell: process.platform === 'win32'
})
const lines = []
createInterface({ input: turbo.stdout }).on('line', (line) => {
  process.stdout.write(`${line}\n`)
  lines.push(line)
})
const code = await new Promise((resolve) => {
  turbo.on('error', (err) => {
    console.error(err)
    resolve(1)
  })
  turbo.on('close', (status, signal) => resolve(status ?? (signal != null ? 1 : 0)))
})
const failures = failingPoints(lines)
if (failures.length > 0) {
  console.log(`\nfailing test points (${failures.length}):`)
  for (const point of failures.slice(0, MAX_FAILURES_SHOWN)) console.log(point.join('\n'))
  if (failures.length > MAX_FAILURES_SHOWN) console.log(`… and ${failures.length - MAX_FAILURES_SHOWN} more above`)
}
console.log(summarize(lines, code).line)
process.exitCode = code
