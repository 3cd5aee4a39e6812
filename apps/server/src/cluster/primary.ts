import cluster, { type Worker } from 'node:cluster'
import { resolve } from 'node:path'
import type { ServerConfig } from '../config.js'
import { keepLocalSecret } from '../commands/local-secret.js'
import { primaryLog } from './log.js'
import { writePidFile } from './pid-file.js'
import { servePrimaryState } from './shared-state.js'
import { DRAIN_MESSAGE } from './worker.js'

/** How long a draining worker may finish its requests before it is killed. */
const DRAIN_TIMEOUT_MS = 10_000
/** A worker dying sooner than this after its start is crash-looping: its replacement waits a second. */
const CRASH_LOOP_MS = 2000

interface Embedded {
  uri: string
  stop: () => Promise<void>
}

/**
 * SVC_WORKERS above 1: this process serves no request. It owns the embedded database (when there
 * is no MONGODB_URI) and the shared port, forks the workers (the first alone, so schema checks
 * and index builds run once before the others start), replaces a worker that dies, replaces them
 * one at a time on SIGHUP (`svc reload`) and drains them all on SIGTERM/SIGINT.
 */
export async function runPrimary (config: ServerConfig, warnings: string[]): Promise<void> {
  for (const warning of warnings) primaryLog('warn', {}, warning)
  let embedded: Embedded | null = null
  if (config.mongodbUri === undefined) {
    // Loaded only when needed, as in database.ts; replica-set mode (devdb's default) gives the
    // workers transactions, retryable writes and change streams.
    const { startDevDb } = await import('@svc/devdb')
    embedded = await startDevDb({ dbPath: config.dataDir, port: 0 })
  }
  const where =
    embedded === null ? 'MONGODB_URI' : `embedded database in ${resolve(config.dataDir)}, shared by the workers`
  // Every worker must sign and verify with the same secret, the generated development one too.
  const workerEnv = {
    MONGODB_URI: embedded?.uri ?? config.mongodbUri!,
    JWT_SECRET: config.jwtSecret,
    SVC_WORKERS: String(config.workers)
  }
  const forget = config.jwtSecretGenerated ? await keepLocalSecret(config.dataDir, config.jwtSecret) : null
  const removePid = await writePidFile(config.dataDir)

  // Without Redis the workers share their counters and cache generations through this process.
  const serveState = config.redisUrl === undefined ? servePrimaryState() : null
  let nextId = 1
  let stopping = false
  const active = new Set<Worker>()
  const startedAt = new Map<Worker, number>()
  const retiring = new Set<Worker>()

  const fork = async (): Promise<{ worker: Worker; port: number; address: string }> => {
    const id = nextId++
    const worker = cluster.fork({ ...workerEnv, SVC_WORKER_ID: String(id) })
    startedAt.set(worker, Date.now())
    serveState?.(worker)
    return await new Promise((resolve, reject) => {
      const onExit = (code: number | null, signal: string | null): void => {
        reject(new Error(`worker ${id} exited before listening (code ${String(code)}, signal ${String(signal)})`))
      }
      worker.once('exit', onExit)
      worker.once('listening', (address) => {
        worker.off('exit', onExit)
        active.add(worker)
        primaryLog('info', { worker: id, workerPid: worker.process.pid }, 'worker listening')
        resolve({ worker, port: address.port, address: address.address })
      })
    })
  }

  const drain = async (worker: Worker): Promise<void> => {
    const listening = active.delete(worker)
    retiring.add(worker)
    if (worker.isDead()) return
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()))
    // Still starting (a shutdown during a reload): it holds no request; stop it outright.
    if (!listening) worker.process.kill('SIGTERM')
    // The worker closes its server (the primary stops handing it connections), finishes the
    // requests it holds, stops its background loops, then exits.
    else if (worker.isConnected()) {
      worker.send(DRAIN_MESSAGE, (err: Error | null) => {
        if (err != null) worker.kill('SIGTERM')
      })
    }
    const timer = setTimeout(() => {
      primaryLog('warn', { worker: worker.id }, 'worker did not drain in time: killed')
      worker.process.kill('SIGKILL')
    }, DRAIN_TIMEOUT_MS)
    await exited
    clearTimeout(timer)
  }

  const replace = (worker: Worker, code: number | null, signal: string | null): void => {
    if (stopping || retiring.delete(worker) || !active.delete(worker)) return
    const quick = Date.now() - (startedAt.get(worker) ?? 0) < CRASH_LOOP_MS
    startedAt.delete(worker)
    primaryLog('error', { workerPid: worker.process.pid, code, signal }, 'worker died: starting a replacement')
    setTimeout(
      () => {
        if (stopping) return
        fork().catch((err: unknown) => {
          primaryLog('error', { err }, 'replacement worker failed to start')
        })
      },
      quick ? 1000 : 0
    )
  }
  cluster.on('exit', replace)

  // The first worker alone: it checks the schemas and builds the indexes the others then find.
  let first: { port: number; address: string }
  try {
    first = await fork()
    await Promise.all(Array.from({ length: config.workers - 1 }, fork))
  } catch (err) {
    stopping = true
    await Promise.all([...active].map(drain))
    await embedded?.stop()
    await removePid()
    await forget?.()
    throw err
  }
  const host = first.address.includes(':') ? `[${first.address}]` : first.address
  const url = `http://${host}:${first.port}`
  primaryLog('info', { url, workers: config.workers, database: where }, 'svc listening')
  process.stderr.write(`svc listening on ${url} (${config.workers} workers, ${where})\n`)

  let reloading: Promise<void> = Promise.resolve()
  const reload = (): void => {
    reloading = reloading.then(async () => {
      primaryLog('info', { workers: active.size }, 'rolling reload')
      for (const old of [...active]) {
        if (stopping) return
        try {
          await fork()
        } catch (err) {
          primaryLog(
            'error',
            { err },
            'rolling reload stopped: a new worker failed to start; the old ones keep serving'
          )
          return
        }
        await drain(old)
      }
      primaryLog('info', { workers: active.size }, 'rolling reload done')
    })
  }

  const shutdown = (signal: string): void => {
    if (stopping) return
    stopping = true
    primaryLog('info', { signal }, 'shutting down: draining the workers')
    void (async () => {
      const all = new Set([...active, ...Object.values(cluster.workers ?? {})])
      await Promise.all([...all].filter((w) => w !== undefined).map(drain))
      await embedded?.stop()
      await removePid()
      await forget?.()
      primaryLog('info', {}, 'stopped')
      process.exit(0)
    })().catch((err: unknown) => {
      primaryLog('error', { err }, 'shutdown failed')
      process.exit(1)
    })
  }
  process.on('SIGHUP', reload)
  process.on('SIGTERM', () => shutdown('SIGTERM'))
  process.on('SIGINT', () => shutdown('SIGINT'))
}
