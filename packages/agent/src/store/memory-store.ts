import { KeyedMutex, LocalLimiters, LocalPendingLinks } from './local-state.js'
import type { AgentStore, Limiter, Link } from './types.js'

/** `memory:` — in-process; every link is lost when the process ends. */
export class MemoryStore implements AgentStore {
  readonly #rows = new Map<string, Link>()
  readonly #mutex = new KeyedMutex()
  readonly #limiters = new LocalLimiters()
  readonly pending = new LocalPendingLinks()

  async get (key: string): Promise<Link | null> {
    return this.#rows.get(key) ?? null
  }

  async set (key: string, link: Link): Promise<void> {
    this.#rows.set(key, link)
  }

  async delete (key: string): Promise<void> {
    this.#rows.delete(key)
  }

  async exclusive<T>(key: string, fn: () => Promise<T>): Promise<T> {
    return await this.#mutex.run(key, fn)
  }

  limiter (name: string, points: number, durationSeconds: number): Limiter {
    return this.#limiters.get(name, points, durationSeconds)
  }

  async close (): Promise<void> {}
}
