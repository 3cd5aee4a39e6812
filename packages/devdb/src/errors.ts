/**
 * A command failure in MongoDB's own shape: the reply is `{ ok: 0, errmsg, code, codeName }`
 * (plus any extra fields such as `keyPattern`/`keyValue` for duplicate keys).
 */
export class CommandError extends Error {
  readonly code: number
  readonly codeName: string
  readonly extra: Record<string, unknown>

  constructor (code: number, codeName: string, errmsg: string, extra: Record<string, unknown> = {}) {
    super(errmsg)
    this.code = code
    this.codeName = codeName
    this.extra = extra
  }

  toReply (): Record<string, unknown> {
    return { ok: 0, errmsg: this.message, code: this.code, codeName: this.codeName, ...this.extra }
  }
}

/** Codes used across the engine; names and numbers as in MongoDB's error_codes.yml. */
export const Codes = {
  InternalError: 1,
  BadValue: 2,
  NoSuchKey: 4,
  FailedToParse: 9,
  TypeMismatch: 14,
  InvalidLength: 16,
  IllegalOperation: 20,
  NamespaceNotFound: 26,
  IndexNotFound: 27,
  CursorNotFound: 43,
  MaxTimeMSExpired: 50,
  NamespaceExists: 48,
  CommandNotFound: 59,
  ImmutableField: 66,
  InvalidOptions: 72,
  InvalidNamespace: 73,
  IndexOptionsConflict: 85,
  IncompatibleCollationVersion: 161,
  CannotIndexParallelArrays: 171,
  QueryPlanKilled: 175,
  IndexKeySpecsConflict: 86,
  OperationNotSupportedInTransaction: 263,
  NotImplemented: 238,
  Location40324: 40324,
  DuplicateKey: 11000,
  InvalidBSON: 22,
  Location15974: 15974,
  CannotCreateIndex: 67,
  ConflictingUpdateOperators: 40,
  InvalidIndexSpecificationOption: 197,
  InvalidPipelineOperator: 168,
  NoSuchTransaction: 251,
  ConflictingOperationInProgress: 117,
  CursorInUse: 250,
  QueryExceededMemoryLimitNoDiskUseAllowed: 292,
  Unauthorized: 13,
  UnknownError: 8,
  DocumentValidationFailure: 121,
  NotWritablePrimary: 10107
} as const

export function badValue (msg: string): CommandError {
  return new CommandError(Codes.BadValue, 'BadValue', msg)
}
