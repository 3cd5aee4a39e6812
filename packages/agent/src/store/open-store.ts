import { FileStore } from './file-store.js'
import { MemoryStore } from './memory-store.js'
import { RedisStore } from './redis-store.js'
import type { AgentStore } from './types.js'

export const DEFAULT_STORE_URL = 'file:./svc-agent-store.json'

/** True for the URLs `openStore` accepts. */
export function isStoreUrl (url: string): boolean {
  return url === 'memory:' || (url.startsWith('file:') && url.length > 'file:'.length) || /^rediss?:\/\/./.test(url)
}

/** Opens the store a `STORE_URL` names: `file:<path>`, `redis://…` / `rediss://…`, or `memory:`. */
export async function openStore (url: string = DEFAULT_STORE_URL): Promise<AgentStore> {
  if (!isStoreUrl(url)) {
    throw new Error(`@svc/agent: STORE_URL must be file:<path>, redis://… or memory: (got '${url}')`)
  }
  if (url === 'memory:') return new MemoryStore()
  if (url.startsWith('file:')) return await FileStore.open(url.slice('file:'.length))
  return await RedisStore.open(url)
}
