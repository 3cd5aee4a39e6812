/** Connection handshake and server-information commands, answered as MongoDB 7.0's mongod: a single-node replica set's primary, or a standalone. */
import { Long, ObjectId, Timestamp, UUID, type Document } from 'bson'
import type { Handler, ServerState } from './context.js'
import { MAX_BSON_OBJECT_SIZE, MAX_MESSAGE_SIZE } from '../wire/messages.js'
import { CommandError, Codes } from '../errors.js'
import { isNumeric, toNumber } from '../bson/bson-order.js'

export const VERSION = '7.0.0'
const ELECTION_ID = new ObjectId('7fffffff0000000000000001')

export function advertisedHost (host: string): string {
  if (host === '0.0.0.0' || host === '::' || host === '') return '127.0.0.1'
  return host.includes(':') ? `[${host}]` : host
}

const hello: Handler = (cmd, ctx) => {
  const reply: Document = {
    helloOk: true,
    isWritablePrimary: true,
    ...replicaSetFields(ctx.server.replSetName, ctx.server.host, ctx.server.port),
    maxBsonObjectSize: MAX_BSON_OBJECT_SIZE,
    maxMessageSizeBytes: MAX_MESSAGE_SIZE,
    maxWriteBatchSize: 100000,
    localTime: new Date(),
    logicalSessionTimeoutMinutes: 30,
    connectionId: ctx.connectionId,
    minWireVersion: 0,
    maxWireVersion: 21,
    readOnly: false,
    ok: 1
  }
  if (cmd.isMaster !== undefined || cmd.ismaster !== undefined) {
    delete reply.isWritablePrimary
    return { ismaster: true, ...reply }
  }
  return reply
}

/**
 * hello's fields of the primary of a one-member replica set. The driver connects to the members
 * listed in `hosts`, so it names the address devdb listens on (a wildcard bind as 127.0.0.1).
 */
function replicaSetFields (setName: string | undefined, host: string, port: number): Document {
  if (setName === undefined) return {}
  const me = `${advertisedHost(host)}:${port}`
  const now = new Date()
  const opTime = { ts: Timestamp.fromBits(0, Math.floor(now.getTime() / 1000)), t: Long.fromNumber(1) }
  return {
    hosts: [me],
    setName,
    setVersion: 1,
    secondary: false,
    primary: me,
    me,
    electionId: ELECTION_ID,
    lastWrite: { opTime, lastWriteDate: now, majorityOpTime: opTime, majorityWriteDate: now }
  }
}

// No `topologyVersion` in hello: without it the driver monitors by polling instead of the
// streaming (exhaust, awaitable hello) protocol, which this server does not implement.

export const handshakeCommands: Record<string, Handler> = {
  hello,
  isMaster: hello,
  ismaster: hello,
  ping: () => ({ ok: 1 }),
  buildInfo: () => ({
    version: VERSION,
    gitVersion: 'devdb',
    versionArray: [7, 0, 0, 0],
    bits: 64,
    debug: false,
    maxBsonObjectSize: MAX_BSON_OBJECT_SIZE,
    storageEngines: ['devdb'],
    javascriptEngine: 'none',
    modules: [],
    ok: 1
  }),
  getParameter: (cmd, ctx) => {
    const out: Document = {}
    const known: Document = {
      featureCompatibilityVersion: { version: '7.0' },
      authenticationMechanisms: [],
      requireApiVersion: false,
      maxBSONObjectSize: MAX_BSON_OBJECT_SIZE,
      ...ctx.server.params
    }
    const all =
      cmd.getParameter === '*' ||
      (typeof cmd.getParameter === 'object' && cmd.getParameter !== null && cmd.getParameter.allParameters === true)
    for (const [k, v] of Object.entries(known)) if (all || k in cmd) out[k] = v
    if (!all && Object.keys(out).length === 0) {
      throw new CommandError(Codes.InvalidOptions, 'InvalidOptions', 'no option found to get')
    }
    return { ...out, ok: 1 }
  },
  setParameter: (cmd, ctx) => {
    const params = ctx.server.params
    const was: Document = {}
    for (const [k, v] of Object.entries(cmd)) {
      if (k === 'setParameter' || k.startsWith('$') || k === 'lsid' || k === 'comment') continue
      if (k === 'allowDiskUseByDefault' && typeof v === 'boolean') {
        was[k] = params.allowDiskUseByDefault
        params.allowDiskUseByDefault = v
        continue
      }
      if (k === 'internalQueryMaxBlockingSortMemoryUsageBytes' && isNumeric(v) && toNumber(v) > 0) {
        was[k] = params.internalQueryMaxBlockingSortMemoryUsageBytes
        params.internalQueryMaxBlockingSortMemoryUsageBytes = Math.trunc(toNumber(v))
        continue
      }
      if (k === 'ttlMonitorSleepSecs' && isNumeric(v) && Number.isInteger(toNumber(v)) && toNumber(v) > 0) {
        was[k] = params.ttlMonitorSleepSecs
        params.ttlMonitorSleepSecs = toNumber(v)
        continue
      }
      if (k === 'transactionLifetimeLimitSeconds' && isNumeric(v) && Number.isInteger(toNumber(v)) && toNumber(v) > 0) {
        was[k] = params.transactionLifetimeLimitSeconds
        params.transactionLifetimeLimitSeconds = toNumber(v)
        continue
      }
      throw new CommandError(
        Codes.InvalidOptions,
        'InvalidOptions',
        `attempted to set unrecognized parameter [${k}], use help:true to see options `
      )
    }
    if (Object.keys(was).length === 0) {
      throw new CommandError(
        Codes.InvalidOptions,
        'InvalidOptions',
        'no option found to set, use help:true to see options '
      )
    }
    return { was: Object.values(was)[0], ok: 1 }
  },
  serverStatus: (_cmd, ctx) => {
    const s = ctx.server
    return {
      host: `${s.host}:${s.port}`,
      version: VERSION,
      process: 'svc-devdb',
      pid: Long.fromNumber(process.pid),
      uptime: Math.floor((Date.now() - s.startedAt.getTime()) / 1000),
      uptimeMillis: Long.fromNumber(Date.now() - s.startedAt.getTime()),
      localTime: new Date(),
      connections: { current: s.connections.current, available: 1000000, totalCreated: s.connections.totalCreated },
      opcounters: { ...s.opcounters },
      metrics: {
        cursor: { open: { total: s.cursors.size } },
        queryExecutor: { scanned: s.catalog.stats.scanned, scannedObjects: s.catalog.stats.scannedObjects }
      },
      mem: { bits: 64, resident: Math.round(process.memoryUsage().rss / 1048576) },
      transactions: s.sessions.status,
      devdb: { storage: storageHealth(s) },
      ok: 1
    }
  },
  hostInfo: () => ({
    system: { currentTime: new Date(), hostname: 'localhost' },
    os: { type: process.platform },
    extra: {},
    ok: 1
  }),
  whatsmyuri: () => ({ you: '127.0.0.1', ok: 1 }),
  connectionStatus: () => ({ authInfo: { authenticatedUsers: [], authenticatedUserRoles: [] }, ok: 1 }),
  endSessions: () => ({ ok: 1 }),
  killSessions: () => ({ ok: 1 }),
  refreshSessions: () => ({ ok: 1 }),
  startSession: () => ({ id: { id: new UUID() }, timeoutMinutes: 30, ok: 1 }),
  getLastError: () => ({ err: null, n: 0, ok: 1 }),
  getCmdLineOpts: () => ({ argv: ['svc-devdb'], parsed: {}, ok: 1 }),
  logout: () => ({ ok: 1 })
}

/**
 * Whether writes can currently be made durable (README "Health"): `writable` turns false when a
 * journal write fails (the write is undone and answered with an error) and true again at the next
 * journal write that succeeds — every write retries the disk.
 */
function storageHealth (s: ServerState): Document {
  if (s.store === undefined) return { durable: false, writable: true }
  const err = s.store.lastWriteError
  return err === undefined
    ? { durable: true, writable: true }
    : { durable: true, writable: false, lastWriteError: err.message }
}
