#!/usr/bin/env node
// `pnpm test`'s runner: every workspace package's `test` script, four packages at a time, all of
// them even when one fails, the longest first; each output line prefixed with its package as
// turbo prints it (`<pkg>:test: …`), then one line with the totals of every package's tap
// summary and the packages that failed. Exit code 1 when any package failed.
// Turbo runs the builds; it cannot order tasks, and taking the long suites last left CI with
// one 20-minute suite running alone at the end. `--filter=<name>` (repeatable) runs only those.
import { spawn } from 'node:child_process'
import { existsSync, readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { summarize } from './test-summary.mjs'

const root = fileURLToPath(new URL('..', import.meta.url))
const CONCURRENCY = 4
/** Suites by their share of a CI run (slowest first, measured); the others follow by name. */
const LONGEST_FIRST = ['@svc/core', '@svc/server', '@svc/devdb', '@svc/agent', '@svc/mcp', '@svc/files', '@svc/console']

/** Workspace packages with a `test` script (pnpm-workspace.yaml: packages/*, apps/*, examples). */
function workspacePackages() {
  const dirs = ['packages', 'apps'].flatMap((parent) =>
    readdirSync(join(root, parent)).map((name) => join(root, parent, name))
  )
  dirs.push(join(root, 'examples'))
  return dirs
    .filter((dir) => existsSync(join(dir, 'package.json')))
    .map((dir) => ({ dir, pkg: JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) }))
    .filter(({ pkg }) => typeof pkg.scripts?.test === 'string')
    .map(({ dir, pkg }) => ({ dir, name: pkg.name }))
}

const rank = (name) => {
  const i = LONGEST_FIRST.indexOf(name)
  return i === -1 ? LONGEST_FIRST.length : i
}
const only = process.argv.slice(2).flatMap((a) => (a.startsWith('--filter=') ? [a.slice('--filter='.length)] : []))
const queue = workspacePackages()
  .filter(({ name }) => only.length === 0 || only.includes(name))
  .sort((a, b) => rank(a.name) - rank(b.name) || a.name.localeCompare(b.name))

// pnpm runs this script with npm_execpath set to itself; `pnpm run test` in each package.
const pnpm = process.env.npm_execpath
const lines = []
const emit = (line) => {
  process.stdout.write(`${line}\n`)
  lines.push(line)
}
const failed = []
let succeeded = 0

async function run({ dir, name }) {
  const started = Date.now()
  const [cmd, args] = pnpm !== undefined ? [process.execPath, [pnpm, 'run', 'test']] : ['pnpm', ['run', 'test']]
  const child = spawn(cmd, args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'], shell: process.platform === 'win32' })
  const prefix = (stream) => createInterface({ input: stream }).on('line', (line) => emit(`${name}:test: ${line}`))
  prefix(child.stdout)
  prefix(child.stderr)
  const code = await new Promise((resolve) => {
    child.on('error', (err) => {
      emit(`${name}:test: ${String(err)}`)
      resolve(1)
    })
    child.on('close', (status, signal) => resolve(status ?? (signal != null ? 1 : 0)))
  })
  const took = `${((Date.now() - started) / 1000).toFixed(0)} s`
  if (code !== 0) {
    failed.push(name)
    emit(`${name}#test:  ERROR  command (${dir}) pnpm run test exited (${code}) after ${took}`)
  } else {
    succeeded++
    emit(`${name}#test: done in ${took}`)
  }
}

const startedAll = Date.now()
await Promise.all(
  Array.from({ length: Math.min(CONCURRENCY, queue.length) }, async () => {
    for (let next = queue.shift(); next !== undefined; next = queue.shift()) await run(next)
  })
)
emit(` Tasks:    ${succeeded} successful, ${succeeded + failed.length} total`)
emit(`  Time:    ${((Date.now() - startedAll) / 60000).toFixed(1)} min`)
if (failed.length > 0) emit(`Failed:    ${failed.map((n) => `${n}#test`).join(', ')}`)
const code = failed.length > 0 ? 1 : 0
console.log(summarize(lines, code).line)
process.exitCode = code
