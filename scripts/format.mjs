#!/usr/bin/env node
// `pnpm format [files…]`: the lint gate's autofix. Prettier (set to neostandard's choices in
// .prettierrc.json) rewraps code to 120 columns, which no eslint fixer does; `eslint --fix` then puts
// back what prettier writes differently (a space before a function's parenthesis, braces `curly`
// wants). The pair runs twice: a brace eslint adds can push a line over 120 again, which the second
// prettier pass wraps. Without arguments it formats the whole repository.
import { spawnSync } from 'node:child_process'
import { statSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const CODE = /\.(?:[cm]?[jt]s|tsx)$/
const GLOB = '**/*.{js,mjs,cjs,ts,mts,cts,tsx}'
const args = process.argv.slice(2)
// A folder stands for the code files under it (prettier alone would also rewrite its Markdown and JSON).
const isDir = (f) => statSync(f, { throwIfNoEntry: false })?.isDirectory() === true
const files =
  args.length > 0
    ? args.flatMap((f) => (isDir(f) ? [`${f.replace(/\/$/, '')}/${GLOB}`] : CODE.test(f) ? [f] : []))
    : [GLOB]
if (files.length === 0) process.exit(0)

function run (bin, argv, quiet = false) {
  const r = spawnSync(join(root, 'node_modules/.bin', bin), argv, { stdio: quiet ? 'ignore' : 'inherit' })
  return r.status ?? 1
}

const prettierArgs = ['--write', '--log-level', 'warn', '--no-error-on-unmatched-pattern', ...files]
for (let pass = 0; pass < 2; pass++) {
  if (run('prettier', prettierArgs) !== 0) process.exit(1)
  run('eslint', ['--fix', '--no-warn-ignored', '--no-error-on-unmatched-pattern', ...files], true)
}
// Report what no fixer can mend (an over-long line of plain code, an unused name), and fail on it.
process.exit(run('eslint', ['--no-warn-ignored', '--no-error-on-unmatched-pattern', ...files]) === 0 ? 0 : 1)
