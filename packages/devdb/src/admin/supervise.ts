/**
 * Around every command, as mongod's service entry point: the operation is registered (currentOp,
 * killOp), `failCommand` is evaluated before it runs (block, close the connection, fail with a
 * code) and after (a write concern error), its failure gets mongod's error labels, its latency is
 * counted, and a slow one (≥ 100 ms, mongod's slowms) is logged.
 */
import type { Document } from 'bson'
import type { ServerState } from '../commands/context.js'
import { WRITE_CONCERN_COMMANDS } from '../commands/index.js'
import { CommandError } from '../errors.js'
import { isPlainDoc } from '../bson/paths.js'
import { CloseConnection } from '../wire/connection.js'
import { sameCommand } from './command-aliases.js'
import { prepareSizes } from './measure.js'
import { truncated } from './current-op.js'
import { adminError, codeName } from './error-codes.js'
import { withErrorLabels } from './error-labels.js'
import { transactionalWrite, type FailAction } from './failpoints.js'
import { interrupted, interruptibleSleep, opNamespace, type ClientInfo, type Operation } from './operations.js'

const SLOW_MS = 100
/** mongod's maxLogSizeKB: a larger command is truncated in a log line */
const MAX_LOG_BYTES = 10 * 1024
const FAILPOINT_MESSAGE = "Failing command via 'failCommand' failpoint"

export async function supervise (
  server: ServerState,
  body: Document,
  client: ClientInfo,
  db: string | undefined,
  run: () => Promise<Document>
): Promise<Document> {
  const admin = server.admin
  const name = Object.keys(body)[0] ?? ''
  if (sameCommand(name, 'hello')) noteClientMetadata(server, client, body)
  const dbName = db ?? (typeof body.$db === 'string' ? body.$db : '')
  const op = admin.ops.begin(client, dbName, name, body)
  const target = { name, ns: opNamespace(op), client }
  let reply: Document
  let forgetSizes = (): void => {}
  try {
    const action = admin.failPoints?.beforeCommand(target)
    const failed = action !== undefined ? await applyFailAction(server, op, action) : undefined
    // a stats command's sizes are summed in slices first, so it does not hold the engine
    if (failed === undefined) forgetSizes = await prepareSizes(server, name, body, dbName)
    if (op.killed) throw interrupted()
    const points = failed === undefined ? admin.failPoints : undefined
    const isRetry = (cmd: Document): boolean => server.sessions.isRetry(cmd)
    const txnWrite = points !== undefined ? transactionalWrite(points, name, body, isRetry) : undefined
    const code = txnWrite?.failBeforeCommitExceptionCode
    if (txnWrite !== undefined && code !== undefined) {
      // mongod fails the statement before its commit, so nothing is written
      if (txnWrite.closeConnection) throw new CloseConnection()
      throw adminError(
        code,
        `Failing write for ${name}:${String(body.txnNumber)} due to failpoint. The write must not be reflected.`
      )
    }
    reply = failed ?? (await run())
    // the write is done and recorded for a retry; its reply is lost with the connection
    if (txnWrite?.closeConnection === true) throw new CloseConnection()
    if (failed === undefined && admin.failPoints !== undefined && takesWriteConcern(name)) {
      const wce = admin.failPoints.afterCommand(target)
      if (wce !== undefined) {
        reply = { ...reply, writeConcernError: wce.writeConcernError }
        if (wce.errorLabels !== undefined) reply.errorLabels = wce.errorLabels
      }
    }
  } catch (e) {
    if (!(e instanceof CommandError)) throw e
    reply = gossip(server, e.toReply())
  } finally {
    forgetSizes()
    admin.ops.end(op)
    finished(server, op)
  }
  return withErrorLabels(body, reply)
}

/** Blocks, closes the connection or answers the fail point's error; undefined: the command runs. */
async function applyFailAction (server: ServerState, op: Operation, action: FailAction): Promise<Document | undefined> {
  const log = (id: number, msg: string, attr: Document = {}): void => {
    server.admin.log.write({
      id,
      c: 'COMMAND',
      ctx: `conn${op.client.connectionId}`,
      msg,
      attr: { command: op.name, ...attr }
    })
  }
  if (action.blockTimeMS !== undefined) {
    log(20432, "Blocking command via 'failCommand' failpoint", { blockTime: `${action.blockTimeMS} ms` })
    await interruptibleSleep(op, action.blockTimeMS)
    log(20433, "Unblocking command via 'failCommand' failpoint")
  }
  if (action.closeConnection) {
    log(20431, "Failing command via 'failCommand' failpoint: closing connection")
    throw new CloseConnection()
  }
  if (action.errorCode === undefined) return undefined
  log(20435, "Failing command via 'failCommand' failpoint: returning error", { errorCode: action.errorCode })
  const code = action.errorCode
  const reply: Document = { ok: 0, errmsg: FAILPOINT_MESSAGE, code, codeName: codeName(code) }
  // the fail point's labels replace mongod's own; an empty list means none
  if (action.errorLabels !== undefined) reply.errorLabels = action.errorLabels
  return gossip(server, reply)
}

/** As mongod's supportsWriteConcern: a property of the command, also inside a transaction. */
function takesWriteConcern (name: string): boolean {
  return WRITE_CONCERN_COMMANDS.has(name)
}

function gossip (server: ServerState, reply: Document): Document {
  return server.replSetName !== undefined ? server.clock.gossip(reply) : reply
}

function noteClientMetadata (server: ServerState, client: ClientInfo, body: Document): void {
  if (client.metadata !== undefined || !isPlainDoc(body.client)) return
  client.metadata = body.client
  const app: unknown = isPlainDoc(body.client.application) ? body.client.application.name : undefined
  if (typeof app === 'string') client.appName = app
  server.admin.log.write({
    id: 51800,
    c: 'NETWORK',
    ctx: `conn${client.connectionId}`,
    msg: 'client metadata',
    attr: { remote: client.remote, client: `conn${client.connectionId}`, doc: body.client }
  })
}

function finished (server: ServerState, op: Operation): void {
  const micros = (process.hrtime.bigint() - op.started) / 1000n
  const ns = opNamespace(op)
  if (!ns.includes('.$cmd')) server.admin.latency.record(ns, op.name, op.command.autocommit !== undefined, micros)
  const durationMillis = Number(micros / 1000n)
  if (durationMillis < SLOW_MS) return
  const attr: Document = { type: 'command', ns, command: truncated(op.command, MAX_LOG_BYTES), durationMillis }
  if (op.client.appName !== undefined) attr.appName = op.client.appName
  server.admin.log.write({ id: 51803, c: 'COMMAND', ctx: `conn${op.client.connectionId}`, msg: 'Slow query', attr })
}
