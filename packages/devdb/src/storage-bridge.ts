/**
 * Opens the durability layer (src/storage/durable-store.ts, owned by the storage layer) through a
 * dynamic import, so the engine compiles and runs in memory even before that module exists.
 */
import type { DurableStore, OpenDurableStore, StoredState } from './storage/types.js'
import { CommandError, Codes } from './errors.js'

export async function openStore (dbPath: string, options: { compactEveryBytes?: number } = {}): Promise<{ store: DurableStore, state: StoredState }> {
  let open: OpenDurableStore | undefined
  try {
    const path = './storage/durable-store.js'
    const mod = (await import(path)) as { openDurableStore?: OpenDurableStore }
    open = mod.openDurableStore
  } catch (e) {
    throw new CommandError(Codes.InternalError, 'InternalError', `dbPath given but the durable store is unavailable: ${e instanceof Error ? e.message : String(e)}`)
  }
  if (typeof open !== 'function') throw new CommandError(Codes.InternalError, 'InternalError', 'storage/durable-store does not export openDurableStore')
  return await open(dbPath, options)
}
