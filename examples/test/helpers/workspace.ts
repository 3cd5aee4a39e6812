import { spawn } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { pnpmCommand } from './process.js'

export interface WorkspacePackage {
  name: string
  path: string
  private: boolean
}

/** Runs a command to completion; rejects with its output when it fails. */
export async function exec (
  command: string,
  args: string[],
  opts: { cwd: string; env?: NodeJS.ProcessEnv }
): Promise<string> {
  return await new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: opts.cwd,
      env: opts.env ?? process.env,
      stdio: ['ignore', 'pipe', 'pipe']
    })
    let out = ''
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString()
    })
    child.stderr.on('data', (c: Buffer) => {
      out += c.toString()
    })
    child.on('error', reject)
    child.on('exit', (code) => {
      if (code === 0) resolve(out)
      else reject(new Error(`${command} ${args.join(' ')} exited with ${String(code)}:\n${out}`))
    })
  })
}

async function pnpm (args: string[], cwd: string): Promise<string> {
  const { command, args: prefix } = pnpmCommand()
  return await exec(command, [...prefix, ...args], { cwd })
}

/** Every workspace package (pnpm's own list, so new packages need no edit here). */
export async function workspacePackages (root: string): Promise<WorkspacePackage[]> {
  const out = await pnpm(['ls', '-r', '--depth', '-1', '--json'], root)
  const list = JSON.parse(out.slice(out.indexOf('['))) as Array<{ name: string; path: string; private?: boolean }>
  return list
    .filter((p) => p.path !== root.replace(/\/$/, ''))
    .map((p) => ({ name: p.name, path: p.path, private: p.private === true }))
}

/** Every file an installed package's `exports` and `bin` point at. */
export function entryPoints (pkgDir: string): string[] {
  const manifest = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')) as {
    exports?: unknown
    bin?: unknown
  }
  const targets: string[] = []
  const walk = (v: unknown): void => {
    if (typeof v === 'string') targets.push(v)
    else if (v != null && typeof v === 'object') for (const x of Object.values(v)) walk(x)
  }
  walk(manifest.exports)
  walk(manifest.bin)
  return targets
}

/** The entry points of a package that are missing from its folder. */
export function missingEntryPoints (pkgDir: string): string[] {
  return entryPoints(pkgDir).filter((p) => !existsSync(join(pkgDir, p)))
}
