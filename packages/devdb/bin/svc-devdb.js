#!/usr/bin/env node
// svc-devdb: runs the built CLI (dist/cli.js) when present; otherwise re-executes itself on the
// TypeScript sources through tsx with the @svc/source export condition.
import { existsSync } from 'node:fs'
import { spawn } from 'node:child_process'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const built = join(root, 'dist', 'cli.js')
const args = process.argv.slice(2)

if (existsSync(built)) {
  const { main } = await import(pathToFileURL(built).href)
  await main(args)
} else if (process.env.SVC_DEVDB_SOURCE === '1') {
  const { main } = await import(pathToFileURL(join(root, 'src', 'cli.ts')).href)
  await main(args)
} else {
  // Resolve tsx from this package's location so the CLI works from any working directory.
  const tsx = import.meta.resolve('tsx')
  const child = spawn(
    process.execPath,
    ['--conditions=@svc/source', '--import', tsx, fileURLToPath(import.meta.url), ...args],
    {
      stdio: 'inherit',
      cwd: process.cwd(),
      env: { ...process.env, SVC_DEVDB_SOURCE: '1' }
    }
  )
  // Forward termination signals so the server can stop cleanly.
  for (const sig of ['SIGINT', 'SIGTERM']) {
    process.on(sig, () => {
      child.kill(sig)
    })
  }
  child.on('exit', (code, signal) => {
    process.exit(code ?? (signal !== null ? 1 : 0))
  })
}
