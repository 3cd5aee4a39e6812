/**
 * maxTimeMS as mongod enforces it: the time budget of one operation, checked while documents and
 * index keys are examined (every CHECK_EVERY units, so the check costs nothing measurable), so a
 * long scan stops with MaxTimeMSExpired (50) instead of holding the single-threaded engine.
 */
import type { Document } from 'bson'
import { CommandError, Codes } from '../errors.js'
import { isNumeric, toNumber, bsonTypeName } from '../bson/bson-order.js'

const CHECK_EVERY = 8
const INT32_MAX = 2147483647

export class Deadline {
  private readonly endsAt: number
  private units = 0

  /** `ms` 0 means no limit (mongod's special value). */
  constructor (
    readonly ms: number,
    start = performance.now()
  ) {
    this.endsAt = ms > 0 ? start + ms : Infinity
  }

  get limited (): boolean {
    return this.endsAt !== Infinity
  }

  /** Milliseconds left (Infinity when unlimited); a cursor carries them over to its getMores. */
  remaining (now = performance.now()): number {
    return this.endsAt - now
  }

  /** Counts one examined document or key; every few, compares with the clock. */
  tick (): void {
    if (this.endsAt === Infinity) return
    if ((++this.units & (CHECK_EVERY - 1)) === 0) this.check()
  }

  check (): void {
    if (this.endsAt !== Infinity && performance.now() >= this.endsAt) throw maxTimeExpired()
  }
}

export const NO_DEADLINE = new Deadline(0)

export function maxTimeExpired (): CommandError {
  return new CommandError(Codes.MaxTimeMSExpired, 'MaxTimeMSExpired', 'operation exceeded time limit')
}

/** Parses a command's `maxTimeMS` with mongod's rules and messages (BadValue for every violation). */
export function parseMaxTimeMS (cmd: Document): number {
  const v = cmd.maxTimeMS
  if (v === undefined) return 0
  if (!isNumeric(v)) throw new CommandError(Codes.BadValue, 'BadValue', 'maxTimeMS must be a number')
  const n = toNumber(v)
  const whole = Math.trunc(n)
  if (!(whole >= 0 && whole <= INT32_MAX)) {
    throw new CommandError(
      Codes.BadValue,
      'BadValue',
      `${Number.isFinite(whole) ? whole : 0} value for maxTimeMS is out of range [0, ${INT32_MAX}]`
    )
  }
  if (bsonTypeName(v) === 'double' && whole !== n) {
    throw new CommandError(Codes.BadValue, 'BadValue', 'maxTimeMS has non-integral value')
  }
  return whole
}
