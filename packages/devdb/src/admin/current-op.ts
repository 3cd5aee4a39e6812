/**
 * `currentOp` and the `$currentOp` stage: the operations in flight (opid, ns, command,
 * secs_running, lsid…), optionally the idle connections, and the transactions in progress between
 * statements (`idleSession`), in mongod 7.0's shape. devdb takes no locks and does not yield
 * inside a command, so `locks`/`lockStats` are empty and `numYields` is 0, as mongod shows an
 * operation that took none.
 */
import { EJSON, Long, UUID, calculateObjectSize, type Document } from 'bson'
import type { CommandContext, Handler, ServerState } from '../commands/context.js'
import { Codes } from '../errors.js'
import { adminError } from './error-codes.js'
import { isPlainDoc } from '../bson/paths.js'
import { compileFilter } from '../query/options.js'
import { typeLabel } from '../commands/args.js'
import { NO_AUTH_UID } from '../txn/sessions.js'
import type { Transaction } from '../txn/transaction.js'
import { elapsedMicros, opNamespace, opType, type ClientInfo, type Operation } from './operations.js'

export interface CurrentOpSpec {
  idleConnections: boolean
  idleSessions: boolean
  truncateOps: boolean
}

const OPTIONS = ['allUsers', 'idleConnections', 'idleSessions', 'localOps', 'truncateOps', 'idleCursors', 'backtrace']
/** mongod truncates a command document over this size to a `$truncated` string */
const TRUNCATE_BYTES = 1000

export function parseCurrentOpSpec (spec: unknown, ctx: CommandContext, target: unknown): CurrentOpSpec {
  if (!isPlainDoc(spec)) {
    throw adminError(
      Codes.FailedToParse,
      `$currentOp options must be specified in an object, but found: ${typeLabel(spec)}`
    )
  }
  if (ctx.db !== 'admin' || target !== 1) {
    throw adminError(Codes.InvalidNamespace, "$currentOp must be run against the 'admin' database with {aggregate: 1}")
  }
  for (const [k, v] of Object.entries(spec)) {
    if (!OPTIONS.includes(k)) throw adminError(40415, `BSON field '$currentOp.${k}' is an unknown field.`)
    if (typeof v !== 'boolean') {
      throw adminError(
        Codes.TypeMismatch,
        `BSON field '$currentOp.${k}' is the wrong type '${typeLabel(v)}', expected type 'bool'`
      )
    }
  }
  if (spec.idleCursors === true) {
    throw adminError(Codes.NotImplemented, 'devdb does not list idle cursors in $currentOp')
  }
  return {
    idleConnections: spec.idleConnections === true,
    idleSessions: spec.idleSessions !== false,
    truncateOps: spec.truncateOps === true
  }
}

export function currentOps (server: ServerState, spec: CurrentOpSpec): Document[] {
  const host = `${server.host}:${server.port}`
  const now = new Date()
  const ops = server.admin.ops.list().sort((a, b) => a.opid - b.opid)
  const out = ops.map((op) => activeOp(op, host, now, spec.truncateOps, server))
  if (spec.idleConnections) {
    for (const c of server.admin.ops.idleClients()) {
      out.push({ type: 'op', host, ...clientFields(c), active: false, currentOpTime: isoTime(now) })
    }
  }
  if (spec.idleSessions) {
    const running = new Set(ops.map((op) => lsidHex(op.command.lsid)))
    for (const txn of server.sessions.inProgress()) {
      if (running.has(txn.session)) continue
      out.push({
        type: 'idleSession',
        host,
        desc: 'inactive transaction',
        lsid: lsidOf(txn.session),
        transaction: transactionFields(txn, now, server),
        waitingForLock: false,
        active: false,
        locks: {},
        lockStats: {},
        currentOpTime: isoTime(now)
      })
    }
  }
  return out
}

function activeOp (op: Operation, host: string, now: Date, truncate: boolean, server: ServerState): Document {
  const micros = elapsedMicros(op)
  const doc: Document = {
    type: 'op',
    host,
    ...clientFields(op.client),
    active: true,
    currentOpTime: isoTime(now),
    threaded: true,
    opid: op.opid
  }
  const lsid = lsidHex(op.command.lsid)
  if (lsid !== undefined) {
    doc.lsid = lsidOf(lsid)
    const inTransaction = op.command.autocommit !== undefined
    const txn = inTransaction ? server.sessions.inProgress().find((t) => t.session === lsid) : undefined
    if (txn !== undefined) doc.transaction = transactionFields(txn, now, server)
  }
  Object.assign(doc, {
    secs_running: Long.fromBigInt(micros.toBigInt() / 1_000_000n),
    microsecs_running: micros,
    op: opType(op.name),
    ns: opNamespace(op),
    redacted: false,
    command: truncate ? truncated(op.command) : op.command,
    numYields: 0,
    locks: {},
    waitingForLock: false,
    lockStats: {},
    waitingForFlowControl: false,
    flowControlStats: {}
  })
  return doc
}

/** A command as mongod shows a large one: `{ $truncated: <its first bytes as extended JSON> }`. */
export function truncated (command: Document, bytes = TRUNCATE_BYTES): Document {
  if (calculateObjectSize(command) <= bytes) return command
  return { $truncated: EJSON.stringify(command).slice(0, bytes) }
}

function clientFields (c: ClientInfo): Document {
  const doc: Document = { desc: `conn${c.connectionId}`, connectionId: c.connectionId, client: c.remote }
  if (c.appName !== undefined) doc.appName = c.appName
  if (c.metadata !== undefined) doc.clientMetadata = c.metadata
  return doc
}

/** What devdb knows of a transaction: its number, when it started and when it will be aborted. */
function transactionFields (txn: Transaction, now: Date, server: ServerState): Document {
  return {
    parameters: { txnNumber: Long.fromBigInt(txn.txnNumber), autocommit: false },
    startWallClockTime: isoTime(new Date(txn.startedAt)),
    timeOpenMicros: Long.fromNumber((now.getTime() - txn.startedAt) * 1000),
    expiryTime: isoTime(new Date(txn.startedAt + server.params.transactionLifetimeLimitSeconds * 1000))
  }
}

/** A session id as the session registry keys it (hex of the UUID's bytes). */
function lsidHex (lsid: unknown): string | undefined {
  const buf = isPlainDoc(lsid) ? (lsid.id as { buffer?: unknown } | undefined)?.buffer : undefined
  return buf instanceof Uint8Array ? Buffer.from(buf).toString('hex') : undefined
}

function lsidOf (hex: string): Document {
  return { id: new UUID(hex), uid: NO_AUTH_UID }
}

/** mongod's currentOpTime: local ISO time with its offset */
function isoTime (d: Date): string {
  return d.toISOString().replace('Z', '+00:00')
}

/** `{ currentOp: 1, $all, $ownOps, <filter> }` on admin: `{ inprog }`. */
export const currentOpCommand: Handler = (cmd, ctx) => {
  if (ctx.db !== 'admin') throw adminError(Codes.Unauthorized, 'currentOp may only be run against the admin database.')
  const filter: Document = {}
  for (const [k, v] of Object.entries(cmd).slice(1)) {
    if (!CURRENT_OP_PARAMS.has(k) && !GENERIC.has(k)) filter[k] = v
  }
  const all = cmd.$all === true || cmd.$all === 1
  // as mongod: only with test commands may $truncateOps turn truncation off
  const truncateOps = ctx.server.admin.failPoints === undefined || cmd.$truncateOps !== false
  const match = compileFilter(filter)
  const inprog = currentOps(ctx.server, { idleConnections: all, idleSessions: true, truncateOps }).filter((d) =>
    match(d)
  )
  return { inprog, ok: 1 }
}

const CURRENT_OP_PARAMS = new Set(['$all', '$ownOps', '$truncateOps'])
/** mongod's generic command arguments: not part of the filter */
const GENERIC = new Set([
  '$db',
  '$readPreference',
  '$clusterTime',
  'lsid',
  'txnNumber',
  'autocommit',
  'startTransaction',
  'comment',
  'maxTimeMS',
  'readConcern',
  'writeConcern',
  'apiVersion',
  'apiStrict',
  'apiDeprecationErrors'
])
