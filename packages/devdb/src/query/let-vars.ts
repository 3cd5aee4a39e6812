/**
 * A command's `let` (find, aggregate, update, delete, findAndModify) and an update statement's
 * `c`: user variables, each an expression evaluated once, in order, before the command runs —
 * as mongod's `Variables::seedVariablesWithLetParameters` — then visible as `$$name` in `$expr`
 * filters and pipelines.
 */
import type { Document } from 'bson'
import { evalExpr } from 'mingo/core'
import { CommandError, Codes } from '../errors.js'
import { isPlainDoc } from '../bson/paths.js'
import { typeLabel } from '../commands/args.js'
import { mingoOptions } from './options.js'
import { translateMingoError } from './mingo-errors.js'
import { validateExpression } from './validate-expr.js'

/** mongod's `variableValidation::validateNameForUserWrite`. */
function checkName (name: string): void {
  if (name.length === 0) throw new CommandError(16869, 'Location16869', 'empty variable names are not allowed')
  const first = name.charCodeAt(0)
  if (!((first >= 0x61 && first <= 0x7a) || first >= 0x80)) {
    throw new CommandError(
      16870,
      'Location16870',
      `'${name}' starts with an invalid character for a user variable name`
    )
  }
  for (const ch of name) {
    const c = ch.charCodeAt(0)
    if (!(c >= 0x80 || /[A-Za-z0-9_]/.test(ch))) {
      throw new CommandError(
        16871,
        'Location16871',
        `'${name}' contains an invalid character for a variable name: '${ch}'`
      )
    }
  }
}

/**
 * Evaluates the variables of `spec` (a command's `let` or a statement's `c`) on top of `base`;
 * undefined when there are none. `field` names the argument in mongod's type error.
 */
export function letVariables (spec: unknown, field: string, base?: Document): Document | undefined {
  if (spec === undefined || spec === null) return base
  if (!isPlainDoc(spec)) {
    throw new CommandError(
      Codes.TypeMismatch,
      'TypeMismatch',
      `BSON field '${field}' is the wrong type '${typeLabel(spec)}', expected type 'object'`
    )
  }
  const vars: Document = { ...base }
  for (const [name, expr] of Object.entries(spec)) {
    checkName(name)
    validateExpression(expr)
    try {
      vars[name] = evalExpr({}, expr, mingoOptions({ variables: { ...vars } }))
    } catch (e) {
      throw translateMingoError(e)
    }
  }
  return vars
}
