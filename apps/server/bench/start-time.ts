// How long `svc start` takes to answer GET /healthz 200: spawn to first 200, in a child process
// on the embedded database (shared by start.bench.ts and the start-up test).
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { createInterface } from 'node:readline'

const BIN = fileURLToPath(new URL('../bin/svc.js', import.meta.url))
const ROOT = fileURLToPath(new URL('../../..', import.meta.url))

export interface Started {
  ms: number
  url: string
  stop: () => Promise<void>
}

/** Starts the reference server (compiled unless `fromSource`) and answers once /healthz is 200. */
export async function startTimed (opts: {
  dataDir: string
  fromSource?: boolean
  timeoutMs?: number
}): Promise<Started> {
  const t0 = performance.now()
  // `_TAPJS_PROCESSINFO_COVERAGE_`: under tap the child records no coverage, as every test child (see
  // test/fixtures/svc-process.ts): tap counted such children in some runs and not others.
  const env = {
    ...process.env,
    _TAPJS_PROCESSINFO_COVERAGE_: '0',
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: opts.dataDir,
    NODE_ENV: 'development',
    LOG_LEVEL: 'warn',
    SVC_FROM_SOURCE: opts.fromSource === true ? '1' : '0'
  }
  const proc = spawn(process.execPath, [BIN, 'start'], { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'pipe'] })
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()))
  const stop = async (): Promise<void> => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM')
    await exited
  }
  try {
    const deadline = t0 + (opts.timeoutMs ?? 60_000)
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error('svc start printed no listening line in time')),
        Math.max(0, deadline - performance.now())
      )
      let output = ''
      createInterface({ input: proc.stderr! }).on('line', (line) => {
        output += line + '\n'
        const m = /svc listening on (http:\/\/\S+)/.exec(line)
        if (m !== null) {
          clearTimeout(timer)
          resolve(m[1])
        }
      })
      proc.once('exit', (code) => {
        clearTimeout(timer)
        reject(new Error(`svc start exited with ${String(code)}: ${output}`))
      })
    })
    for (;;) {
      const res = await fetch(`${url}/healthz`).catch(() => null)
      if (res?.status === 200) return { ms: performance.now() - t0, url, stop }
      if (performance.now() > deadline) throw new Error(`/healthz not 200 in time (last ${String(res?.status)})`)
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  } catch (err) {
    await stop()
    throw err
  }
}
