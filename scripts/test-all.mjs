#!/usr/bin/env node
// `pnpm test`'s runner: every workspace package's `test` script, four packages at a time, the
// longest suites first (turbo starts them in an order of its own: with the slowest ones last, the
// run ends with one core busy for minutes). Every package runs even when one fails; each output
// line is prefixed `<package>:test: ` as turbo's `--log-prefix=task` does; then one line with
// the totals of every package's tap summary and the packages that failed. Exit code: 1 when any
// failed. `--filter=<name>` (repeatable) runs only those packages.
import { execFileSync, spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { summarize } from './test-summary.mjs'

const CONCURRENCY = 4
// Suite durations in CI (2026-11-27, 2 cores): core 12 min, devdb 8, server 7.7, agent 4.2, mcp 3.6,
// graphql 3.4 … all 0.4. Packages not listed run after these, in the workspace's order.
const LONGEST_FIRST = [
  '@svc/core',
  '@svc/devdb',
  '@svc/server',
  '@svc/agent',
  '@svc/mcp',
  '@svc/graphql',
  '@svc/examples',
  '@svc/webhooks',
  '@svc/files',
  '@svc/surface',
  '@svc/realtime',
  '@svc/audit',
  '@svc/console',
  '@svc/softdelete',
  '@svc/client',
  '@svc/agent-app',
  '@svc/testkit',
  '@svc/all'
]

const root = fileURLToPath(new URL('..', import.meta.url))
// The pnpm running `pnpm test` (its script, or a binary); `pnpm` on the PATH otherwise.
const pnpmPath = /pnpm/.test(process.env.npm_execpath ?? '') ? process.env.npm_execpath : 'pnpm'
const pnpm = (args) => (/\.[cm]?js$/.test(pnpmPath) ? [process.execPath, [pnpmPath, ...args]] : [pnpmPath, args])

const only = process.argv.slice(2).flatMap((a) => (a.startsWith('--filter=') ? [a.slice('--filter='.length)] : []))
const [cmd, args] = pnpm(['-r', 'ls', '--depth', '-1', '--json'])
const listed = JSON.parse(execFileSync(cmd, args, { cwd: root, encoding: 'utf8' }))
const rank = (name) => {
  const i = LONGEST_FIRST.indexOf(name)
  return i === -1 ? LONGEST_FIRST.length : i
}
const packages = listed
  .filter((p) => p.path !== root.replace(/\/$/, '') && (only.length === 0 || only.includes(p.name)))
  .filter((p) => hasTestScript(p.path))
  .sort((a, b) => rank(a.name) - rank(b.name))

function hasTestScript (dir) {
  const { scripts = {} } = JSON.parse(execFileSync('cat', [`${dir}/package.json`], { encoding: 'utf8' }))
  return typeof scripts.test === 'string'
}

const lines = []
const out = (line) => {
  process.stdout.write(`${line}\n`)
  lines.push(line)
}

async function runTests ({ name, path }) {
  const [c, a] = pnpm(['run', 'test'])
  const child = spawn(c, a, { cwd: path, stdio: ['ignore', 'pipe', 'pipe'] })
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream }).on('line', (line) => {
      out(`${name}:test: ${line}`)
    })
  }
  const code = await new Promise((resolve) => {
    child.on('error', (err) => {
      out(`${name}:test: ${String(err)}`)
      resolve(1)
    })
    child.on('close', (status, signal) => resolve(status ?? (signal != null ? 1 : 0)))
  })
  // The same verdict line as turbo's, which the summary reads.
  if (code !== 0) out(`${name}#test:  ERROR  command (${path}) exited (${code})`)
  return code
}

const queue = [...packages]
let failures = 0
await Promise.all(
  Array.from({ length: Math.min(CONCURRENCY, queue.length) }, async () => {
    for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
      if ((await runTests(next)) !== 0) failures++
    }
  })
)
const code = failures > 0 ? 1 : 0
console.log(summarize(lines, code).line)
process.exitCode = code
