import { mkdir, readFile } from 'node:fs/promises'
import { dirname, resolve } from 'node:path'
import lockfile from 'proper-lockfile'
import writeFileAtomic from 'write-file-atomic'
import type { AgentStore, Link } from './types.js'

interface FileShape { version: 1, links: Record<string, Link> }

/**
 * `file:<path>` — a JSON file that survives restarts. Every change is written atomically
 * (temp file, fsync, rename; mode 0600: it holds refresh tokens), and the file is locked for the
 * life of the process, so a second agent process on the same file fails at start instead of
 * overwriting the first one's rotations.
 */
export class FileStore implements AgentStore {
  readonly path: string
  #rows: Record<string, Link> = {}
  #release: (() => Promise<void>) | null = null
  // Writes are chained: each one writes the whole current state, in order.
  #writing: Promise<void> = Promise.resolve()
  #compromised: Error | null = null

  private constructor (path: string) {
    this.path = resolve(path)
  }

  static async open (path: string): Promise<FileStore> {
    const store = new FileStore(path)
    await mkdir(dirname(store.path), { recursive: true })
    try {
      store.#release = await lockfile.lock(store.path, {
        realpath: false,
        stale: 30_000,
        update: 10_000,
        // Another process took the lock over (ours went stale): stop writing rather than crash.
        onCompromised: (err) => { store.#compromised = err }
      })
    } catch (err) {
      if ((err as { code?: string }).code === 'ELOCKED') {
        throw new Error(`@svc/agent: the store ${store.path} is in use by another process (the file store serves a single process; use one agent per file)`, { cause: err })
      }
      throw err
    }
    try {
      const text = await readFile(store.path, 'utf8')
      const parsed = JSON.parse(text) as Partial<FileShape>
      if (parsed.version !== 1 || parsed.links == null || typeof parsed.links !== 'object') throw new Error('not an agent store (expected { version: 1, links })')
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

  async #flush (): Promise<void> {
    if (this.#compromised != null) throw new Error(`@svc/agent: lost the lock on ${this.path}; not writing`, { cause: this.#compromised })
    const data: FileShape = { version: 1, links: this.#rows }
    const next = this.#writing.then(async () => { await writeFileAtomic(this.path, `${JSON.stringify(data, null, 2)}\n`, { mode: 0o600 }) })
    this.#writing = next.catch(() => {})
    await next
  }

  async close (): Promise<void> {
    await this.#writing
    const release = this.#release
    this.#release = null
    if (release != null) await release()
  }
}
