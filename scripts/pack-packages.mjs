#!/usr/bin/env node
// `npx -y pnpm@10 pack:all`: every publishable workspace package (not `private`) packed with
// `pnpm pack` into one folder (default `dist-packages/`), the way to install svc while its
// packages are not on the registry. pnpm pack rewrites `workspace:*` dependencies to the exact
// versions, so the tarballs installed together with npm resolve each other. Run after a build
// (the root script builds first): the tarballs ship `dist/`.
import { execFileSync } from 'node:child_process'
import { mkdirSync, readdirSync, rmSync } from 'node:fs'
import { resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const dest = resolve(process.cwd(), process.argv[2] ?? resolve(root, 'dist-packages'))

/** pnpm itself: the one running this script when there is one, else npx's. */
function pnpm (args) {
  const execPath = process.env.npm_execpath
  const [command, prefix] =
    execPath != null && /pnpm/.test(execPath) ? [process.execPath, [execPath]] : ['npx', ['-y', 'pnpm@10']]
  return execFileSync(command, [...prefix, ...args], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit']
  })
}

const listed = pnpm(['ls', '-r', '--depth', '-1', '--json'])
const names = JSON.parse(listed.slice(listed.indexOf('[')))
  .filter((p) => p.private !== true && p.path !== root.replace(/\/$/, ''))
  .map((p) => p.name)
mkdirSync(dest, { recursive: true })
// Tarballs of an earlier version would be installed next to the new ones by `npm install dist-packages/*.tgz`.
for (const f of readdirSync(dest)) if (f.endsWith('.tgz')) rmSync(resolve(dest, f))
pnpm(['-r', ...names.flatMap((n) => ['--filter', n]), 'pack', '--pack-destination', dest])
const packed = readdirSync(dest)
  .filter((f) => f.endsWith('.tgz'))
  .sort()
console.log(`${packed.length} tarballs in ${dest}:\n${packed.map((f) => `  ${f}`).join('\n')}`)
