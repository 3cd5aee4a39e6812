import type { AgentStore, Link } from './types.js'

/** `memory:` — in-process; every link is lost when the process ends. */
export class MemoryStore implements AgentStore {
  readonly #rows = new Map<string, Link>()

  async get (key: string): Promise<Link | null> {
    return this.#rows.get(key) ?? null
  }

  async set (key: string, link: Link): Promise<void> {
    this.#rows.set(key, link)
  }

  async delete (key: string): Promise<void> {
    this.#rows.delete(key)
  }

  async close (): Promise<void> {}
}
