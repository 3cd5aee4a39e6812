/**
 * The administration commands mongod 7.0 answers and devdb measures for itself: dbStats,
 * collStats, currentOp, killOp, getLog, replSetGetStatus, and configureFailPoint when test
 * commands are enabled (refused otherwise exactly as mongod refuses it: no such command).
 */
import type { Handler } from '../commands/context.js'
import { Codes } from '../errors.js'
import { adminError } from './error-codes.js'
import { collectionArg, typeLabel } from '../commands/args.js'
import { isNumeric, toNumber } from '../bson/bson-order.js'
import { dbStats, parseScale, storageStats } from './stats.js'
import { currentOpCommand } from './current-op.js'
import { replSetGetStatus } from './repl-status.js'
import { handshakeCommands } from '../commands/handshake.js'
import { withAliases } from './command-aliases.js'

const killOp: Handler = (cmd, ctx) => {
  if (ctx.db !== 'admin') throw adminError(Codes.Unauthorized, 'killOp may only be run against the admin database.')
  if (cmd.op === undefined) throw adminError(Codes.NoSuchKey, 'Missing expected field "op"')
  if (!isNumeric(cmd.op)) {
    throw adminError(Codes.TypeMismatch, `Expected field "op" to have numeric type, but found ${typeLabel(cmd.op)}`)
  }
  const opId = Math.trunc(toNumber(cmd.op))
  ctx.server.admin.log.write({
    id: 20482,
    c: 'COMMAND',
    ctx: `conn${ctx.connectionId}`,
    msg: 'Going to kill op',
    attr: { opId }
  })
  ctx.server.admin.ops.kill(opId)
  return { info: 'attempting to kill op', ok: 1 }
}

/** Every session's transaction is aborted and its operations in flight are interrupted. */
const killAllSessions: Handler = (cmd, ctx) => {
  if (!Array.isArray(cmd.killAllSessions)) {
    throw adminError(Codes.TypeMismatch, "BSON field 'killAllSessions' is the wrong type, expected type 'array'")
  }
  ctx.server.sessions.abortAll()
  const ops = ctx.server.admin.ops
  for (const op of ops.list()) if (op.command.lsid !== undefined && op.command !== cmd) ops.kill(op.opid)
  return { ok: 1 }
}

export const adminStatsCommands: Record<string, Handler> = withAliases({
  buildInfo: handshakeCommands.buildInfo,
  dbStats: (cmd, ctx) => dbStats(cmd, ctx, ctx.server.admin.dbPath),
  collStats: (cmd, ctx) => {
    // under its alias the collection is `collstats`' value
    const name = collectionArg({ ...cmd, collStats: cmd[Object.keys(cmd)[0]] }, 'collStats')
    const c = ctx.server.catalog.get(ctx.db, name)
    if (c === undefined) throw adminError(Codes.NamespaceNotFound, `Collection [${ctx.db}.${name}] not found.`)
    return { ns: c.ns, ...storageStats(c, parseScale(cmd.scale)), ok: 1 }
  },
  currentOp: currentOpCommand,
  killOp,
  killAllSessions,
  getLog: (cmd, ctx) => ctx.server.admin.log.getLog(cmd, ctx),
  replSetGetStatus,
  configureFailPoint: (cmd, ctx) => {
    const fp = ctx.server.admin.failPoints
    if (fp === undefined) throw adminError(Codes.CommandNotFound, "no such command: 'configureFailPoint'")
    return fp.configure(cmd, ctx)
  }
})
