import { FileStore } from './file-store.js'
import { MemoryStore } from './memory-store.js'
import type { AgentStore } from './types.js'

export const DEFAULT_STORE_URL = 'file:./svc-agent-store.json'

/** Opens the store a `STORE_URL` names: `file:<path>` or `memory:`. */
export async function openStore (url: string = DEFAULT_STORE_URL): Promise<AgentStore> {
  if (url === 'memory:') return new MemoryStore()
  if (url.startsWith('file:') && url.length > 'file:'.length) return await FileStore.open(url.slice('file:'.length))
  throw new Error(`@svc/agent: STORE_URL must be file:<path> or memory: (got '${url}')`)
}
