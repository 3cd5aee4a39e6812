import cluster, { type Worker } from 'node:cluster'
import { resolve } from 'node:path'
import type { ServerConfig } from '../config.js'
import { keepLocalSecret } from '../commands/local-secret.js'
import { primaryLog } from './log.js'
import { writePidFile } from './pid-file.js'
import { servePrimaryState } from './shared-state.js'
import { CLUSTER_PROTOCOL, DRAIN_MESSAGE, ProtocolMismatchError, helloProtocol, type StartMessage } from './messages.js'

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
 * is no MONGODB_URI) and the shared port, forks the workers (all loading their code at once, the
 * first then starting alone, so schema checks and index builds run once before the others start),
 * replaces a worker that dies, replaces them one at a time on SIGHUP (`svc reload`) and drains
 * them all on SIGTERM/SIGINT.
 */
export async function runPrimary (config: ServerConfig, warnings: string[]): Promise<void> {
  for (const warning of warnings) primaryLog('warn', {}, warning)
  // Every worker must sign and verify with the same secret, the generated development one too.
  const workerEnv = { JWT_SECRET: config.jwtSecret, SVC_WORKERS: String(config.workers) }
  const forget = config.jwtSecretGenerated ? await keepLocalSecret(config.dataDir, config.jwtSecret) : null
  const removePid = await writePidFile(config.dataDir)

  // Without Redis the workers share their counters and cache generations through this process.
  const serveState = config.redisUrl === undefined ? servePrimaryState() : null
  let nextId = 1
  let stopping = false
  const active = new Set<Worker>()
  const startedAt = new Map<Worker, number>()
  const retiring = new Set<Worker>()

  /** Rejects when `worker` exits before `what`. */
  const exitBefore = (worker: Worker, what: string, settle: (err: Error) => void): (() => void) => {
    const onExit = (code: number | null, signal: string | null): void => {
      settle(new Error(`worker ${worker.id} exited before ${what} (code ${String(code)}, signal ${String(signal)})`))
    }
    worker.once('exit', onExit)
    return () => worker.off('exit', onExit)
  }

  /**
   * A new worker; resolves once its code is loaded (it then waits for `start`). One whose hello
   * names another protocol (svc upgraded on disk since this primary started) is stopped before
   * it is given anything: ProtocolMismatchError.
   */
  const fork = async (): Promise<Worker> => {
    const worker = cluster.fork({ ...workerEnv, SVC_WORKER_ID: String(nextId++) })
    startedAt.set(worker, Date.now())
    serveState?.(worker)
    return await new Promise((resolve, reject) => {
      const unwatch = exitBefore(worker, 'loading', reject)
      const onHello = (message: unknown): void => {
        const protocol = helloProtocol(message)
        if (protocol === undefined) return
        worker.off('message', onHello)
        unwatch()
        if (protocol === CLUSTER_PROTOCOL) return resolve(worker)
        startedAt.delete(worker)
        worker.process.kill('SIGTERM')
        reject(new ProtocolMismatchError('worker', protocol))
      }
      worker.on('message', onHello)
    })
  }

  /** Lets a loaded worker open the database and listen; resolves once it does. */
  const start = async (worker: Worker, mongodbUri: string): Promise<{ port: number; address: string }> =>
    await new Promise((resolve, reject) => {
      const unwatch = exitBefore(worker, 'listening', reject)
      worker.once('listening', (address) => {
        unwatch()
        active.add(worker)
        primaryLog('info', { worker: worker.id, workerPid: worker.process.pid }, 'worker listening')
        resolve({ port: address.port, address: address.address })
      })
      worker.send({ svc: 'start', mongodbUri, protocol: CLUSTER_PROTOCOL } satisfies StartMessage)
    })

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
        fork()
          .then(async (w) => await start(w, mongodbUri))
          .catch((err: unknown) => {
            if (err instanceof ProtocolMismatchError) {
              primaryLog('error', { workers: active.size }, `replacement worker refused: ${err.message}`)
            } else primaryLog('error', { err }, 'replacement worker failed to start')
          })
      },
      quick ? 1000 : 0
    )
  }
  cluster.on('exit', replace)

  // Every worker at once: each loads its code (the slow part of a start) while the database
  // starts. Then the first starts alone (it checks the schemas and builds the indexes the others
  // then find), then the others.
  const loading = Array.from({ length: config.workers }, fork)
  for (const l of loading) l.catch(() => {})
  let embedded: Embedded | null = null
  let mongodbUri = config.mongodbUri ?? ''
  let first: { port: number; address: string }
  try {
    if (config.mongodbUri === undefined) {
      // Loaded only when needed, as in database.ts; replica-set mode (devdb's default) gives the
      // workers transactions, retryable writes and change streams.
      const { startDevDb } = await import('@svc/devdb')
      embedded = await startDevDb({ dbPath: config.dataDir, port: 0 })
      mongodbUri = embedded.uri
    }
    first = await start(await loading[0], mongodbUri)
    await Promise.all(loading.slice(1).map(async (l) => await start(await l, mongodbUri)))
  } catch (err) {
    stopping = true
    await Promise.all(Object.values(cluster.workers ?? {}).map(async (w) => await (w === undefined ? null : drain(w))))
    await embedded?.stop()
    await removePid()
    await forget?.()
    throw err
  }
  const where =
    embedded === null ? 'MONGODB_URI' : `embedded database in ${resolve(config.dataDir)}, shared by the workers`
  const host = first.address.includes(':') ? `[${first.address}]` : first.address
  const url = `http://${host}:${first.port}`
  primaryLog('info', { url, workers: config.workers, database: where }, 'svc listening')
  process.stderr.write(`svc listening on ${url} (${config.workers} workers, ${where})\n`)

  let reloading: Promise<void> = Promise.resolve()
  const reload = (): void => {
    reloading = reloading.then(async () => {
      const old = [...active]
      primaryLog('info', { workers: old.length }, 'rolling reload')
      // The new workers load their code together (the slow part); then each in turn starts and,
      // once it listens, takes the place of an old one, which drains.
      const loading = old.map(fork)
      for (const l of loading) l.catch(() => {})
      for (const [i, retired] of old.entries()) {
        if (stopping) return
        try {
          await start(await loading[i], mongodbUri)
        } catch (err) {
          // Every new worker of a reload runs the same code: one line says why for all of them.
          if (err instanceof ProtocolMismatchError) {
            primaryLog(
              'error',
              { workers: active.size },
              `rolling reload refused, the old workers keep serving: ${err.message}`
            )
          } else {
            primaryLog(
              'error',
              { err },
              'rolling reload stopped: a new worker failed to start; the old ones keep serving'
            )
          }
          const unused = await Promise.all(loading.slice(i + 1).map(async (l) => await l.catch(() => null)))
          await Promise.all(unused.map(async (w) => await (w === null ? null : drain(w))))
          return
        }
        await drain(retired)
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
