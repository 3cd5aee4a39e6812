import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process'
import { fileURLToPath } from 'node:url'

/** The repository root (this file is examples/test/helpers/process.ts). */
export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url))
export const EXAMPLES_DIR = fileURLToPath(new URL('../../', import.meta.url))

export interface Running {
  child: ChildProcess
  /** Everything printed so far, stdout and stderr interleaved. */
  output: () => string
  /** Resolves with the first match of `pattern` in the output; rejects on exit or after `timeoutMs`. */
  waitFor: (pattern: RegExp, timeoutMs?: number) => Promise<RegExpMatchArray>
  /** Resolves with the exit code (null when killed by a signal). */
  exited: Promise<number | null>
  /** SIGTERM, then SIGKILL if it has not exited within 15 s (a loaded machine closes slowly). */
  stop: () => Promise<number | null>
}

interface Teardownable {
  teardown(fn: () => unknown): void
}

/** Spawns a process whose output tests read; it is stopped in teardown whatever happens. */
export function run (t: Teardownable, command: string, args: string[], opts: SpawnOptions = {}): Running {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], ...opts })
  let text = ''
  const listeners = new Set<() => void>()
  const onData = (chunk: Buffer): void => {
    text += chunk.toString()
    for (const l of listeners) l()
  }
  child.stdout?.on('data', onData)
  child.stderr?.on('data', onData)
  const exited = new Promise<number | null>((resolve) => {
    child.once('exit', (code) => {
      for (const l of listeners) l()
      resolve(code)
    })
  })
  let exitedYet = false
  void exited.then(() => {
    exitedYet = true
  })

  const waitFor = async (pattern: RegExp, timeoutMs = 30_000): Promise<RegExpMatchArray> =>
    await new Promise((resolve, reject) => {
      const check = (): void => {
        const m = pattern.exec(text)
        if (m != null) {
          done(() => {
            resolve(m)
          })
        } else if (exitedYet || child.exitCode !== null || child.signalCode !== null) {
          done(() => {
            reject(new Error(`${command} exited before printing ${String(pattern)}:\n${text}`))
          })
        }
      }
      const timer = setTimeout(() => {
        done(() => {
          reject(new Error(`${command} did not print ${String(pattern)} within ${timeoutMs} ms:\n${text}`))
        })
      }, timeoutMs)
      const done = (fn: () => void): void => {
        clearTimeout(timer)
        listeners.delete(check)
        fn()
      }
      listeners.add(check)
      check()
    })

  // A detached child leads its own process group: signal the group, so wrappers (pnpm, npx)
  // never leave the real server behind.
  const kill = (signal: NodeJS.Signals): void => {
    try {
      if (opts.detached === true && child.pid !== undefined) process.kill(-child.pid, signal)
      else child.kill(signal)
    } catch {}
  }
  const stop = async (): Promise<number | null> => {
    if (child.exitCode === null && child.signalCode === null) {
      kill('SIGTERM')
      const timer = setTimeout(() => {
        kill('SIGKILL')
      }, 15_000)
      const code = await exited
      clearTimeout(timer)
      return code
    }
    return await exited
  }
  t.teardown(stop)
  return { child, output: () => text, waitFor, exited, stop }
}

/** The command that runs pnpm 10: the one running this test when there is one, else npx. */
export function pnpmCommand (): { command: string; args: string[] } {
  const execPath = process.env.npm_execpath
  if (execPath != null && /pnpm/.test(execPath)) return { command: process.execPath, args: [execPath] }
  return { command: 'npx', args: ['-y', 'pnpm@10'] }
}
