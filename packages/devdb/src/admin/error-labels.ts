/**
 * The error labels mongod puts on a failed reply (its ErrorLabelBuilder, for a mongod and an
 * external client): `TransientTransactionError` on transaction statements, `RetryableWriteError`
 * on retryable writes and on commit/abort, from the error's code or the write concern error's.
 */
import type { Document } from 'bson'
import { isNeedRetargettingError, isRetriableError, isSnapshotError } from './error-codes.js'

const COMMIT_OR_ABORT = new Set(['commitTransaction', 'abortTransaction'])
/** always transient (mongod's list, less the sharding and tenant migration codes devdb cannot meet) */
const TRANSIENT = new Set([112, 24, 267, 343, 249])
const NO_SUCH_TRANSACTION = 251
const INTERNAL_TRANSACTION_NOT_SUPPORTED = 358

export function isTransientTransactionError (code: number, hasWce: boolean, commitOrAbort: boolean): boolean {
  if (code === INTERNAL_TRANSACTION_NOT_SUPPORTED) return false
  if (TRANSIENT.has(code) || isSnapshotError(code) || isNeedRetargettingError(code)) return true
  if (commitOrAbort) return code === NO_SUCH_TRANSACTION && !hasWce
  return isRetriableError(code) || code === NO_SUCH_TRANSACTION
}

/**
 * The labels for a reply to `cmd` that failed with `code` and/or carries a write concern error
 * `wcCode`. Shutdown codes get no label beyond their category: devdb is not shutting down when
 * it answers.
 */
export function errorLabelsFor (cmd: Document, name: string, code?: number, wcCode?: number): string[] {
  const hasTxnNumber = cmd.txnNumber !== undefined
  const inTransaction = hasTxnNumber && cmd.autocommit !== undefined
  const commitOrAbort = COMMIT_OR_ABORT.has(name)
  if (code !== undefined && inTransaction && isTransientTransactionError(code, wcCode !== undefined, commitOrAbort)) {
    return ['TransientTransactionError']
  }
  const retryableWrite = hasTxnNumber && cmd.autocommit === undefined
  if (retryableWrite || (inTransaction && commitOrAbort)) {
    if ((code !== undefined && isRetriableError(code)) || (wcCode !== undefined && isRetriableError(wcCode))) {
      return ['RetryableWriteError']
    }
  }
  return []
}

/** Adds mongod's labels to an error reply (or one with a write concern error) that has none yet. */
export function withErrorLabels (cmd: Document, reply: Document): Document {
  if (Array.isArray(reply.errorLabels) && reply.errorLabels.length === 0) {
    const { errorLabels: _none, ...rest } = reply
    return rest
  }
  if (reply.errorLabels !== undefined) return reply
  const code = reply.ok === 1 ? undefined : numberOr(reply.code)
  const wce = reply.writeConcernError as Document | undefined
  const wcCode = wce !== undefined ? numberOr(wce.code) : undefined
  if (code === undefined && wcCode === undefined) return reply
  const labels = errorLabelsFor(cmd, Object.keys(cmd)[0] ?? '', code, wcCode)
  return labels.length > 0 ? { ...reply, errorLabels: labels } : reply
}

function numberOr (v: unknown): number | undefined {
  return typeof v === 'number' ? v : undefined
}
