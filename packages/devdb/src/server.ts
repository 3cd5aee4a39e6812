/** The TCP server: connections, the shared engine state, TTL sweeper and durable store lifecycle. */
import { createServer, type Server, type Socket } from 'node:net'
import type { Document } from 'bson'
import { Catalog } from './engine/catalog.js'
import { CursorManager } from './engine/cursors.js'
import { TtlSweeper } from './engine/ttl.js'
import { runCommand } from './commands/index.js'
import { defaultParams, type ServerState } from './commands/context.js'
import { serveConnection } from './wire/connection.js'
import type { Request } from './wire/messages.js'
import type { DurableStore, StoredState } from './storage/types.js'
import { openDurableStore } from './storage/durable-store.js'
import { Committer } from './engine/committer.js'
import { Sessions } from './txn/sessions.js'
import { ClusterClock } from './txn/cluster-time.js'
import { AdminState } from './admin/admin-state.js'
import { supervise } from './admin/supervise.js'
import { ChangeHistory } from './change-streams/history.js'
import { ChangeCapture } from './change-streams/capture.js'
import type { ClientInfo } from './admin/operations.js'

export interface DevDbOptions {
  port?: number
  host?: string
  dbPath?: string
  /** TTL monitor interval in seconds (MongoDB default 60). */
  ttlMonitorSleepSecs?: number
  /** Idle cursor timeout in ms (MongoDB default 10 minutes). */
  cursorTimeoutMs?: number
  /** Snapshot (compaction) interval in ms when dbPath is set. */
  snapshotIntervalMs?: number
  /** Also compact once the journal grows past this many bytes (default 64 MiB). */
  compactEveryBytes?: number
  /**
   * Replica-set name: devdb answers as the primary of a single-node replica set, with
   * multi-document transactions and retryable writes (default `'rs0'`). `false`: a standalone
   * mongod, which refuses both.
   */
  replSet?: string | false
  /** Test hook simulating a filling disk: bytes the journal may still write (see README "Durability"). */
  diskFree?: () => number
  /** Deep-freeze stored documents, so code that changes one in place throws (for tests; costs a walk per write). */
  freezeDocuments?: boolean
  /** mongod's `enableTestCommands`: offer `configureFailPoint` (the `failCommand` fail point); tests only. */
  enableTestCommands?: boolean
  /**
   * Size cap of the change streams' history, like mongod's oplog size (default 64 MiB, estimated
   * from the documents it keeps); a stream resuming before the oldest kept change gets 286.
   */
  changeStreamHistoryBytes?: number
}

export interface DevDb {
  uri: string
  port: number
  stop: () => Promise<void>
}

export async function startDevDb (options: DevDbOptions = {}): Promise<DevDb> {
  const host = options.host ?? '127.0.0.1'
  const catalog = new Catalog(options.freezeDocuments === true)
  let store: DurableStore | undefined
  if (options.dbPath !== undefined) {
    const opened = await openDurableStore(options.dbPath, {
      compactEveryBytes: options.compactEveryBytes ?? 64 * 1024 * 1024,
      diskFree: options.diskFree
    })
    store = opened.store
    catalog.load(opened.state)
  }
  const committer = new Committer(catalog, store)
  const state: ServerState = {
    catalog,
    cursors: new CursorManager(options.cursorTimeoutMs ?? 10 * 60 * 1000),
    startedAt: new Date(),
    host,
    port: 0,
    connections: { current: 0, totalCreated: 0 },
    opcounters: { insert: 0, query: 0, update: 0, delete: 0, getmore: 0, command: 0 },
    params: { ...defaultParams(), ttlMonitorSleepSecs: options.ttlMonitorSleepSecs ?? 60 },
    admin: new AdminState({ enableTestCommands: options.enableTestCommands === true, dbPath: options.dbPath }),
    store,
    replSetName: options.replSet === false ? undefined : (options.replSet ?? 'rs0'),
    // A transaction abandoned by its client (killed) holds its writes until this lifetime ends.
    sessions: new Sessions(catalog, () => state.params.transactionLifetimeLimitSeconds * 1000),
    clock: new ClusterClock()
  }
  if (state.replSetName !== undefined) {
    // Change streams: every committed write becomes events in a capped history (src/change-streams/).
    const history = new ChangeHistory(options.changeStreamHistoryBytes ?? 64 * 1024 * 1024)
    state.changes = history
    const capture = new ChangeCapture(catalog, state.clock, history)
    committer.observer = {
      begin: (body) => {
        capture.begin(body)
      },
      end: (journal, body, pending) => capture.end(journal, body, pending),
      durable: (mark) => {
        history.settleThrough(mark)
      },
      undone: () => {
        history.dropPending()
      }
    }
  }
  const sockets = new Set<Socket>()
  let nextConnectionId = 1
  const handle = async (req: Request, client: ClientInfo): Promise<Document> => {
    const connectionId = client.connectionId
    if (req.kind === 'query') {
      // Legacy OP_QUERY is only used for the initial handshake against "<db>.$cmd".
      const db = req.collection.endsWith('.$cmd') ? req.collection.slice(0, -5) : req.collection
      const body = req.body.$query !== undefined ? req.body.$query : req.body
      const run = async (): Promise<Document> => await runCommand(body, state, connectionId, { committer }, db)
      return await supervise(state, body, client, db, run)
    }
    const run = async (): Promise<Document> => await runCommand(req.body, state, connectionId, { committer })
    return await supervise(state, req.body, client, undefined, run)
  }
  const server: Server = createServer((socket) => {
    const connectionId = nextConnectionId++
    sockets.add(socket)
    state.connections.current++
    state.connections.totalCreated++
    const client = state.admin.connected(
      connectionId,
      `${socket.remoteAddress ?? ''}:${socket.remotePort ?? 0}`,
      state.connections.current
    )
    serveConnection(
      socket,
      async (req) => await handle(req, client),
      () => {
        sockets.delete(socket)
        state.connections.current--
        state.admin.disconnected(connectionId, state.connections.current)
      }
    )
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  const address = server.address()
  const port = typeof address === 'object' && address !== null ? address.port : 0
  state.port = port
  state.admin.started(port)
  const ttl = new TtlSweeper(catalog, () => state.params.ttlMonitorSleepSecs * 1000, committer)
  ttl.start()
  let snapshotTimer: NodeJS.Timeout | undefined
  const snapshot = async (): Promise<void> => {
    if (store !== undefined) await store.snapshot((): StoredState => catalog.toState())
  }
  if (store !== undefined) {
    snapshotTimer = setInterval(() => {
      snapshot().catch(() => {})
    }, options.snapshotIntervalMs ?? 60_000)
    snapshotTimer.unref()
  }
  let stopped: Promise<void> | undefined
  return {
    uri: `mongodb://${host.includes(':') ? `[${host}]` : host}:${port}/`,
    port,
    stop: async () => {
      stopped ??= (async () => {
        ttl.stop()
        if (snapshotTimer !== undefined) clearInterval(snapshotTimer)
        state.cursors.close()
        state.changes?.close()
        const closing = new Promise<void>((resolve) =>
          server.close(() => {
            resolve()
          })
        )
        for (const s of sockets) s.destroy()
        await closing
        await ttl.idle()
        if (store !== undefined) {
          try {
            await snapshot()
          } finally {
            await store.close()
          }
        }
      })()
      await stopped
    }
  }
}
