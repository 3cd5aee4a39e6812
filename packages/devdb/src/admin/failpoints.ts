/**
 * `configureFailPoint` and the fail points drivers' tests use, as mongod offers them with test
 * commands enabled (the `enableTestCommands` option): `failCommand` makes the next commands that
 * match fail with a code, close their connection, block for a while, or answer a write concern
 * error after running; `onPrimaryTransactionalWrite` fails a retryable write before its commit or
 * closes the connection after it (the reply is lost, the write is done).
 */
import type { Document } from 'bson'
import { Codes } from '../errors.js'
import { adminError } from './error-codes.js'
import { isNumeric, toNumber } from '../bson/bson-order.js'
import { isPlainDoc } from '../bson/paths.js'
import type { ClientInfo } from './operations.js'
import { sameCommand } from './command-aliases.js'

type Mode = { kind: 'off' | 'alwaysOn' } | { kind: 'times' | 'skip'; n: number } | { kind: 'probability'; p: number }

/** One fail point: its mode, its data and how often it fired (mongod's FailPoint). */
class FailPoint {
  mode: Mode = { kind: 'off' }
  data: Document = {}
  timesEntered = 0

  /** Fires when on and `applies(data)`; only a firing counts against `times` and `skip`. */
  fire (applies: (data: Document) => boolean): Document | undefined {
    const mode = this.mode
    if (mode.kind === 'off' || !applies(this.data)) return undefined
    if (mode.kind === 'skip' && mode.n > 0) {
      mode.n--
      return undefined
    }
    if (mode.kind === 'probability' && Math.random() >= mode.p) return undefined
    if (mode.kind === 'times' && --mode.n <= 0) this.mode = { kind: 'off' }
    this.timesEntered++
    return this.data
  }
}

/** What `failCommand` does to a command before it runs. */
export interface FailAction {
  blockTimeMS?: number
  closeConnection: boolean
  errorCode?: number
  /** replaces the labels mongod would compute (an empty array: none) */
  errorLabels?: unknown[]
}

export interface CommandTarget {
  name: string
  ns: string
  client: ClientInfo
}

/** What `onPrimaryTransactionalWrite` does to a retryable write. */
export interface TransactionalWriteAction {
  closeConnection: boolean
  /** fail before the commit: nothing is written */
  failBeforeCommitExceptionCode?: number
}

const RETRYABLE_WRITES = new Set(['insert', 'update', 'delete', 'findAndModify', 'findandmodify', 'bulkWrite'])

export class FailPoints {
  private readonly failCommand = new FailPoint()
  private readonly onPrimaryTransactionalWrite = new FailPoint()
  /** mongod's failGetMoreAfterCursorCheckout: a getMore fails with `errorCode` once it holds its cursor */
  private readonly failGetMoreAfterCursorCheckout = new FailPoint()

  /** `configureFailPoint`; of the command's context it reads the database only (so no import of it). */
  readonly configure = (cmd: Document, ctx: { db: string }): Document => {
    if (ctx.db !== 'admin') {
      throw adminError(Codes.Unauthorized, 'configureFailPoint may only be run against the admin database.')
    }
    const name: unknown = cmd.configureFailPoint
    if (typeof name !== 'string') {
      throw adminError(Codes.TypeMismatch, "BSON field 'configureFailPoint' is the wrong type, expected type 'string'")
    }
    const points: Record<string, FailPoint> = {
      failCommand: this.failCommand,
      onPrimaryTransactionalWrite: this.onPrimaryTransactionalWrite,
      failGetMoreAfterCursorCheckout: this.failGetMoreAfterCursorCheckout
    }
    const point = Object.prototype.hasOwnProperty.call(points, name) ? points[name] : undefined
    // mongod's answer for a fail point it does not have
    if (point === undefined) throw adminError(266, `${name} not found`)
    const mode = parseMode(cmd.mode)
    if (cmd.data !== undefined && !isPlainDoc(cmd.data)) {
      throw adminError(Codes.TypeMismatch, "the 'data' field must be a JSON object")
    }
    const count = point.timesEntered
    point.mode = mode
    point.data = cmd.data ?? {}
    return { count, ok: 1 }
  }

  /** The action for a command about to run, if `failCommand` fires for it. */
  beforeCommand (t: CommandTarget): FailAction | undefined {
    const acts = (d: Document): boolean =>
      d.closeConnection === true || d.blockConnection === true || isNumeric(d.errorCode)
    const data = this.failCommand.fire((d) => matches(d, t) && acts(d))
    if (data === undefined) return undefined
    const action: FailAction = { closeConnection: data.closeConnection === true }
    if (data.blockConnection === true) {
      if (!isNumeric(data.blockTimeMS)) {
        throw adminError(Codes.InvalidOptions, "must specify 'blockTimeMS' when 'blockConnection' is true")
      }
      const ms = toNumber(data.blockTimeMS)
      if (ms < 0) throw adminError(Codes.InvalidOptions, "'blockTimeMS' must be non-negative")
      action.blockTimeMS = ms
    }
    if (isNumeric(data.errorCode)) action.errorCode = Math.trunc(toNumber(data.errorCode))
    if (Array.isArray(data.errorLabels)) action.errorLabels = data.errorLabels
    return action
  }

  /** The error code a getMore fails with, if failGetMoreAfterCursorCheckout fires. */
  getMoreFailure (): number | undefined {
    const data = this.failGetMoreAfterCursorCheckout.fire((d) => isNumeric(d.errorCode))
    return data !== undefined ? Math.trunc(toNumber(data.errorCode)) : undefined
  }

  /** Fires `onPrimaryTransactionalWrite` (callers check the write is retryable). */
  retryableWrite (): TransactionalWriteAction | undefined {
    const data = this.onPrimaryTransactionalWrite.fire(() => true)
    if (data === undefined) return undefined
    const action: TransactionalWriteAction = { closeConnection: data.closeConnection !== false }
    const code: unknown = data.failBeforeCommitExceptionCode
    if (isNumeric(code)) action.failBeforeCommitExceptionCode = Math.trunc(toNumber(code))
    return action
  }

  /** The write concern error `failCommand` adds to a command that ran (and takes a write concern). */
  afterCommand (t: CommandTarget): { writeConcernError: unknown; errorLabels?: unknown[] } | undefined {
    const data = this.failCommand.fire((d) => matches(d, t) && d.writeConcernError !== undefined)
    if (data === undefined) return undefined
    const labels = Array.isArray(data.errorLabels) ? { errorLabels: data.errorLabels } : {}
    return { writeConcernError: data.writeConcernError, ...labels }
  }
}

/**
 * `onPrimaryTransactionalWrite` for a retryable write (a write with a txnNumber outside a
 * transaction) that will run: as in mongod, a retry answered from the recorded reply writes
 * nothing, so the fail point does not fire for it.
 */
export function transactionalWrite (
  points: FailPoints,
  name: string,
  cmd: Document,
  isRetry: (cmd: Document) => boolean
): TransactionalWriteAction | undefined {
  const retryable = RETRYABLE_WRITES.has(name) && cmd.txnNumber !== undefined && cmd.autocommit === undefined
  if (!retryable || isRetry(cmd)) return undefined
  return points.retryableWrite()
}

/** mongod's shouldActivateFailCommandFailPoint, for a connection from outside (every devdb client). */
function matches (data: Document, t: CommandTarget): boolean {
  if (t.name === 'configureFailPoint') return false
  if (data.threadName !== undefined && data.threadName !== `conn${t.client.connectionId}`) return false
  if (data.appName !== undefined && data.appName !== (t.client.appName ?? '')) return false
  if (data.namespace !== undefined && data.namespace !== t.ns) return false
  if (data.failAllCommands !== undefined) return true
  const names: unknown = data.failCommands
  return Array.isArray(names) && names.some((n) => typeof n === 'string' && sameCommand(n, t.name))
}

function parseMode (mode: unknown): Mode {
  if (mode === 'off' || mode === 'alwaysOn') return { kind: mode }
  if (typeof mode === 'string') throw adminError(Codes.BadValue, `unknown mode: ${mode}`)
  if (!isPlainDoc(mode)) throw adminError(Codes.TypeMismatch, "'mode' must be a string or JSON object")
  if (mode.times !== undefined) return { kind: 'times', n: count(mode.times, 'times') }
  if (mode.skip !== undefined) return { kind: 'skip', n: count(mode.skip, 'skip') }
  if (mode.activationProbability !== undefined) {
    const p = isNumeric(mode.activationProbability) ? toNumber(mode.activationProbability) : NaN
    if (!(p >= 0 && p <= 1)) throw adminError(Codes.BadValue, 'activationProbability must be between 0.0 and 1.0')
    return { kind: 'probability', p }
  }
  throw adminError(Codes.BadValue, "'mode' must be one of 'off', 'alwaysOn', 'times', and 'skip'")
}

function count (v: unknown, field: string): number {
  if (!isNumeric(v)) throw adminError(Codes.TypeMismatch, `'${field}' option to 'mode' must be a number`)
  const n = toNumber(v)
  if (n < 0) throw adminError(Codes.BadValue, `'${field}' option to 'mode' must be positive`)
  return Math.trunc(n)
}
