/** Command dispatch: lookup, transactions (replica-set mode) or a standalone's refusal, error shaping, durable commit. */
import type { Document } from 'bson'
import type { CommandContext, Handler, ServerState } from './context.js'
import type { JournalEntry } from '../storage/types.js'
import type { Committer } from '../engine/committer.js'
import { CommandError, Codes } from '../errors.js'
import { handshakeCommands } from './handshake.js'
import { adminCommands } from './admin.js'
import { adminStatsCommands } from '../admin/admin-commands.js'
import { insertCommand } from './insert.js'
import { bulkWriteCommand } from './bulk-write.js'
import { findCommands } from './find.js'
import { updateCommands } from './update.js'
import { findAndModifyCommand } from './find-and-modify.js'
import { aggregateCommand } from './aggregate.js'
import { indexCommands } from './indexes.js'
import { renameCollectionCommand } from './rename.js'
import { explainCommand } from './explain.js'
import { collModCommand } from '../change-streams/coll-mod.js'
import { translateMingoError } from '../query/mingo-errors.js'
import { Deadline, NO_DEADLINE, parseMaxTimeMS } from '../engine/deadline.js'
import { isPlainDoc } from '../bson/paths.js'
import { isNumeric, toNumber } from '../bson/bson-order.js'
import { codeName } from '../admin/error-codes.js'
import { SNAPSHOT_READS, checkApiVersion, checkReadConcern, readConcernOf, writeConcernError } from './generic-args.js'

const COMMANDS: Record<string, Handler> = {
  ...handshakeCommands,
  ...adminCommands,
  ...adminStatsCommands,
  insert: insertCommand,
  bulkWrite: bulkWriteCommand,
  ...findCommands,
  ...updateCommands,
  findAndModify: findAndModifyCommand,
  findandmodify: findAndModifyCommand,
  aggregate: aggregateCommand,
  ...indexCommands,
  renameCollection: renameCollectionCommand,
  explain: explainCommand,
  collMod: collModCommand
}

const REFUSED: Record<string, string> = {
  mapReduce: 'mapReduce is not supported by devdb',
  createUser: 'authentication is not supported by devdb',
  saslStart: 'authentication is not supported by devdb'
}

export interface DispatchOptions {
  committer: Committer
}

/** Runs one command; its changes are acknowledged only once journaled, and undone when that fails. */
export async function runCommand (
  body: Document,
  server: ServerState,
  connectionId: number,
  opts: DispatchOptions,
  dbOverride?: string
): Promise<Document> {
  let reply: Document
  const failed = changeStreamGetMoreFailure(body, server)
  if (failed !== undefined) return replicaSetReply(body, failed, server)
  await awaitChangeStreamData(body, server)
  try {
    reply = await opts.committer.run((journal) => {
      let r: Document
      try {
        r = dispatch(body, server, connectionId, journal, dbOverride)
      } catch (e) {
        r = errorReply(e)
      }
      // A write advances the replica set's logical time (its operationTime).
      if (journal.length > 0) server.clock.tick()
      return r
    }, body)
  } catch (e) {
    // An undone write did not happen: a retried commitTransaction or retryable write must not answer ok.
    if (body.txnNumber !== undefined) server.sessions.writeUndone(body)
    reply = new CommandError(
      Codes.InternalError,
      'InternalError',
      `journal commit failed, the write was undone: ${e instanceof Error ? e.message : String(e)}`
    ).toReply()
  }
  return replicaSetReply(body, reply, server)
}

/**
 * failGetMoreAfterCursorCheckout on a change stream's getMore: the cursor is killed and the error
 * gets the ResumableChangeStreamError label when its code is one a stream resumes after (mongod
 * adds it for wire version 9+), so the driver resumes.
 */
function changeStreamGetMoreFailure (body: Document, server: ServerState): Document | undefined {
  if (Object.keys(body)[0] !== 'getMore' || !isNumeric(body.getMore)) return undefined
  const id = toNumber(body.getMore)
  if (server.cursors.tailOf(id) === undefined) return undefined
  const code = server.admin.failPoints?.getMoreFailure()
  if (code === undefined) return undefined
  server.cursors.kill([id])
  const labels = RESUMABLE_CODES.has(code) ? { errorLabels: ['ResumableChangeStreamError'] } : {}
  return {
    ok: 0,
    code,
    codeName: codeName(code),
    errmsg: "Failing getMore via 'failGetMoreAfterCursorCheckout' failpoint",
    ...labels
  }
}

/** mongod's resumable change stream errors (HostUnreachable, NetworkTimeout, NotWritablePrimary…) */
const RESUMABLE_CODES = new Set([
  6, 7, 89, 91, 189, 262, 9001, 10107, 11600, 11602, 13435, 13436, 63, 150, 13388, 234, 133
])

/** A change stream's getMore waits for an event up to its maxTimeMS (mongod's default 1 s) before it answers. */
async function awaitChangeStreamData (body: Document, server: ServerState): Promise<void> {
  if (Object.keys(body)[0] !== 'getMore' || !isNumeric(body.getMore)) return
  const tail = server.cursors.tailOf(toNumber(body.getMore))
  if (tail !== undefined) await tail.awaitData(isNumeric(body.maxTimeMS) ? toNumber(body.maxTimeMS) : 1000)
}

/** Commands that take a write concern and wait for it (the reply carries a writeConcernError). */
export const WRITE_CONCERN_COMMANDS = new Set([
  'insert',
  'update',
  'delete',
  'findAndModify',
  'findandmodify',
  'bulkWrite',
  'create',
  'drop',
  'dropDatabase',
  'createIndexes',
  'dropIndexes',
  'renameCollection',
  'commitTransaction',
  'abortTransaction'
])

/** What a replica-set member adds to every reply: the write concern's outcome and the logical time. */
function replicaSetReply (body: Document, reply: Document, server: ServerState): Document {
  if (server.replSetName === undefined) return reply
  const wce = reply.ok === 1 && WRITE_CONCERN_COMMANDS.has(Object.keys(body)[0]) ? writeConcernError(body) : undefined
  return server.clock.gossip(wce !== undefined ? { ...reply, writeConcernError: wce } : reply)
}

function dispatch (
  body: Document,
  server: ServerState,
  connectionId: number,
  journal: JournalEntry[],
  dbOverride?: string
): Document {
  const name = Object.keys(body)[0]
  if (name === undefined) throw new CommandError(Codes.CommandNotFound, 'CommandNotFound', "no such command: ''")
  const db = dbOverride ?? body.$db
  if (typeof db !== 'string') throw new CommandError(40571, 'Location40571', 'OP_MSG requests require a $db argument')
  const txnStatement =
    body.startTransaction !== undefined ||
    body.autocommit !== undefined ||
    name === 'abortTransaction' ||
    name === 'commitTransaction'
  if (txnStatement || body.txnNumber !== undefined) {
    // A standalone mongod has neither retryable writes nor transactions.
    if (server.replSetName === undefined) {
      throw new CommandError(
        Codes.IllegalOperation,
        'IllegalOperation',
        'Transaction numbers are only allowed on a replica set member or mongos'
      )
    }
  }
  checkApiVersion(name, body)
  server.sessions.touch(body.lsid)
  if (name === 'endSessions' || name === 'killSessions') server.sessions.endSessions(body[name])
  if (txnStatement) {
    server.opcounters.command++
    if (name === 'commitTransaction' || name === 'abortTransaction') {
      if (db !== 'admin') {
        throw new CommandError(
          Codes.Unauthorized,
          'Unauthorized',
          `${name} may only be run against the admin database.`
        )
      }
      return server.sessions.run(body, name, journal, () => ({ ok: 1 }))
    }
    const handler = lookup(name)
    const deadline = name === 'getMore' ? NO_DEADLINE : new Deadline(parseMaxTimeMS(body))
    return server.sessions.run(body, name, journal, (catalog, txnJournal) =>
      handler(body, { server: { ...server, catalog }, db, connectionId, journal: txnJournal, deadline })
    )
  }
  const handler = lookup(name)
  const readConcern = readConcernOf(body)
  checkReadConcern(name, body, readConcern, server.replSetName === undefined)
  server.opcounters.command++
  // getMore runs on its cursor's remaining budget (its own maxTimeMS is refused there).
  const deadline = name === 'getMore' ? NO_DEADLINE : new Deadline(parseMaxTimeMS(body))
  if (readConcern?.level === 'snapshot' && SNAPSHOT_READS.has(name)) {
    // A snapshot read outside a transaction: the catalog as of atClusterTime (default: now), echoed in the reply.
    const snap = server.clock.snapshot(server.catalog, readConcern.atClusterTime)
    const reply = handler(body, { server: { ...server, catalog: snap.catalog }, db, connectionId, journal, deadline })
    const { atClusterTime } = snap
    return isPlainDoc(reply.cursor)
      ? { ...reply, cursor: { ...reply.cursor, atClusterTime } }
      : { ...reply, atClusterTime }
  }
  const ctx: CommandContext = { server, db, connectionId, journal, deadline }
  // A retryable write (txnNumber without autocommit) is executed once per txnNumber.
  if (body.txnNumber !== undefined) return server.sessions.retryableWrite(body, name, () => handler(body, ctx))
  return handler(body, ctx)
}

function lookup (name: string): Handler {
  const handler = Object.prototype.hasOwnProperty.call(COMMANDS, name) ? COMMANDS[name] : undefined
  if (handler !== undefined) return handler
  if (Object.prototype.hasOwnProperty.call(REFUSED, name)) {
    throw new CommandError(Codes.CommandNotFound, 'CommandNotFound', REFUSED[name])
  }
  throw new CommandError(Codes.CommandNotFound, 'CommandNotFound', `no such command: '${name}'`)
}

export function errorReply (e: unknown): Document {
  if (e instanceof CommandError) return e.toReply()
  if (e instanceof Error && /^(unknown|Unknown|Invalid|invalid|\$)/.test(e.message)) {
    return translateMingoError(e).toReply()
  }
  const msg = e instanceof Error ? e.message : String(e)
  return new CommandError(Codes.InternalError, 'InternalError', msg).toReply()
}
