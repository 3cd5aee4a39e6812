/** Turns errors thrown inside mingo into MongoDB-shaped command errors. */
import { CommandError, Codes } from '../errors.js'

export function translateMingoError (e: unknown): CommandError {
  if (e instanceof CommandError) return e
  const msg = e instanceof Error ? e.message : String(e)
  let m = /unknown (?:query |top level )?operator:? (\$\w+)/i.exec(msg)
  if (m !== null) {
    return new CommandError(
      Codes.BadValue,
      'BadValue',
      msg.includes('top level') ? `unknown top level operator: ${m[1]}` : `unknown operator: ${m[1]}`
    )
  }
  m = /unknown (?:pipeline )?(?:stage|operator).*?(\$\w+)/i.exec(msg)
  if (m !== null) return new CommandError(40324, 'Location40324', `Unrecognized pipeline stage name: '${m[1]}'`)
  if (e instanceof RangeError) return new CommandError(Codes.BadValue, 'BadValue', msg)
  return new CommandError(Codes.BadValue, 'BadValue', msg)
}
