/** The errors of transactions, with mongod's codes, messages and labels. */
import { CommandError, Codes } from '../errors.js'

const TRANSIENT = { errorLabels: ['TransientTransactionError'] }

export function writeConflict (): CommandError {
  return new CommandError(
    112,
    'WriteConflict',
    'Write conflict during plan execution and yielding is disabled. :: Please retry your operation or multi-document transaction.',
    TRANSIENT
  )
}

export function noSuchTransaction (msg: string): CommandError {
  return new CommandError(Codes.NoSuchTransaction, 'NoSuchTransaction', msg, TRANSIENT)
}

export function notInTransaction (command: string): CommandError {
  return new CommandError(
    Codes.OperationNotSupportedInTransaction,
    'OperationNotSupportedInTransaction',
    `Cannot run '${command}' in a multi-document transaction.`
  )
}
