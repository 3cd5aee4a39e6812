import { mkdir, readFile } from 'node:fs/promises'
import { dirname, resolve } from 'node:path'
import writeFileAtomic from 'write-file-atomic'
import { FileLock, LockedError } from './file-lock.js'
import { KeyedMutex, LocalLimiters, LocalPendingLinks } from './local-state.js'
import type { AgentStore, Limiter, Link } from './types.js'

interface FileShape {
  version: 1
  links: Record<string, Link>
}

/**
 * `file:<path>` — a JSON file that survives restarts. Every change is written atomically
 * (temp file, fsync, rename; mode 0600: it holds refresh tokens), and the file is locked for the
 * life of the process (`<path>.lock`), so a second agent process on the same file fails at start
 * instead of overwriting the first one's rotations; a crashed owner's lock is taken over.
 * Link codes and rate-limit counters stay in memory (single process).
 */
export class FileStore implements AgentStore {
  readonly path: string
  readonly pending = new LocalPendingLinks()
  #rows: Record<string, Link> = {}
  #lock: FileLock | null = null
  readonly #mutex = new KeyedMutex()
  readonly #limiters = new LocalLimiters()
  // Writes are chained: each one writes the whole current state, in order.
  #writing: Promise<void> = Promise.resolve()

  private constructor (path: string) {
    this.path = resolve(path)
  }

  /** `heartbeatMs`: how often the lock is renewed and checked (default 10 s). */
  static async open (path: string, opts: { heartbeatMs?: number } = {}): Promise<FileStore> {
    const store = new FileStore(path)
    await mkdir(dirname(store.path), { recursive: true })
    try {
      store.#lock = await FileLock.acquire(store.path, opts.heartbeatMs)
    } catch (err) {
      if (err instanceof LockedError) {
        throw new Error(
          `@svc/agent: the store ${store.path} is in use by another process, ${err.message} (the file store serves a single process; use one agent per file, or STORE_URL=redis://…)`,
          { cause: err }
        )
      }
      throw err
    }
    try {
      const text = await readFile(store.path, 'utf8')
      const parsed = JSON.parse(text) as Partial<FileShape>
      if (parsed.version !== 1 || parsed.links == null || typeof parsed.links !== 'object') {
        throw new Error('not an agent store (expected { version: 1, links })')
      }
      store.#rows = parsed.links
    } catch (err) {
      if ((err as { code?: string }).code !== 'ENOENT') {
        await store.close()
        throw new Error(`@svc/agent: cannot read the store ${store.path}: ${(err as Error).message}`, { cause: err })
      }
    }
    return store
  }

  async get (key: string): Promise<Link | null> {
    return Object.hasOwn(this.#rows, key) ? this.#rows[key] : null
  }

  async set (key: string, link: Link): Promise<void> {
    this.#rows = { ...this.#rows, [key]: link }
    await this.#flush()
  }

  async delete (key: string): Promise<void> {
    if (!Object.hasOwn(this.#rows, key)) return
    const { [key]: _gone, ...rest } = this.#rows
    this.#rows = rest
    await this.#flush()
  }

  async exclusive<T>(key: string, fn: () => Promise<T>): Promise<T> {
    return await this.#mutex.run(key, fn)
  }

  limiter (name: string, points: number, durationSeconds: number): Limiter {
    return this.#limiters.get(name, points, durationSeconds)
  }

  async #flush (): Promise<void> {
    const lost = this.#lock?.lost
    if (lost != null) throw new Error(`@svc/agent: lost the lock on ${this.path}; not writing`, { cause: lost })
    const data: FileShape = { version: 1, links: this.#rows }
    const next = this.#writing.then(async () => {
      await writeFileAtomic(this.path, `${JSON.stringify(data, null, 2)}\n`, { mode: 0o600 })
    })
    this.#writing = next.catch(() => {})
    await next
  }

  async close (): Promise<void> {
    await this.#writing
    const lock = this.#lock
    this.#lock = null
    if (lock != null) await lock.release()
  }
}
