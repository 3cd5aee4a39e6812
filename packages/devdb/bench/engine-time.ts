/**
 * The tenant workload's list-20 and count measured inside the engine (commands dispatched in
 * process: no driver, no socket), so the engine's own cost shows apart from per-request costs.
 */
import type { Document } from 'bson'
import { Catalog } from '../src/engine/catalog.js'
import { CursorManager } from '../src/engine/cursors.js'
import { runCommand } from '../src/commands/index.js'
import { Committer } from '../src/engine/committer.js'
import { Sessions } from '../src/txn/sessions.js'
import { ClusterClock } from '../src/txn/cluster-time.js'
import { defaultParams, type ServerState } from '../src/commands/context.js'
import { TENANTS } from './tenant-workload.js'
import { AdminState } from '../src/admin/admin-state.js'

const WINDOW_MS = 2000

export async function engineTime (size: number): Promise<Record<string, number>> {
  const catalog = new Catalog()
  const committer = new Committer(catalog, undefined)
  const state: ServerState = {
    catalog,
    cursors: new CursorManager(60_000),
    startedAt: new Date(),
    host: '127.0.0.1',
    port: 0,
    connections: { current: 0, totalCreated: 0 },
    opcounters: {},
    params: defaultParams(),
    admin: new AdminState({ enableTestCommands: false }),
    sessions: new Sessions(catalog),
    clock: new ClusterClock()
  }
  const run = async (body: Document): Promise<Document> =>
    await runCommand({ ...body, $db: 'bench' }, state, 1, { committer })
  try {
    await run({
      createIndexes: 'e',
      indexes: [
        { key: { userId: 1, createdAt: -1 }, name: 'a' },
        { key: { userId: 1, ref: 1 }, name: 'b' }
      ]
    })
    for (let i = 0; i < size; i += 10_000) {
      await run({
        insert: 'e',
        documents: Array.from({ length: Math.min(10_000, size - i) }, (_, j) => ({
          userId: `u${(i + j) % TENANTS}`,
          createdAt: new Date(Date.UTC(2024, 0, 1) + (i + j) * 1000),
          ref: i + j
        }))
      })
    }
    const tenant = (): string => `u${Math.floor(Math.random() * TENANTS)}`
    const time = async (body: () => Document): Promise<number> => {
      for (let i = 0; i < 200; i++) await run(body())
      const start = performance.now()
      let n = 0
      while (performance.now() - start < WINDOW_MS) {
        await run(body())
        n++
      }
      return Math.round(((performance.now() - start) / n) * 1000)
    }
    return {
      'list-20 µs/op': await time(() => ({
        find: 'e',
        filter: { userId: tenant() },
        sort: { createdAt: -1 },
        limit: 20
      })),
      'count µs/op': await time(() => ({
        aggregate: 'e',
        pipeline: [{ $match: { userId: tenant() } }, { $group: { _id: 1, n: { $sum: 1 } } }],
        cursor: {}
      }))
    }
  } finally {
    state.cursors.close()
  }
}
