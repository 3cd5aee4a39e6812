/** Parsing of update documents with mongod's error codes and messages. */
import type { Document } from 'bson'
import { CommandError, Codes } from '../../errors.js'
import { isPlainDoc } from '../../bson/paths.js'
import { isNumeric } from '../../bson/bson-order.js'
import { typeLabel } from '../../commands/args.js'
import { validateExpression } from '../../query/validate-expr.js'

export const UPDATE_OPERATORS = new Set([
  '$set',
  '$unset',
  '$inc',
  '$mul',
  '$min',
  '$max',
  '$rename',
  '$setOnInsert',
  '$currentDate',
  '$push',
  '$addToSet',
  '$pop',
  '$pull',
  '$pullAll',
  '$bit'
])

const PIPELINE_UPDATE_STAGES = new Set(['$addFields', '$set', '$project', '$unset', '$replaceRoot', '$replaceWith'])

export type ParsedUpdate =
  | { kind: 'replacement'; doc: Document }
  | { kind: 'operators'; ops: Document; paths: string[] }
  | { kind: 'pipeline'; stages: Document[] }

const failedToParse = (msg: string): CommandError => new CommandError(Codes.FailedToParse, 'FailedToParse', msg)

export function parseUpdate (u: unknown): ParsedUpdate {
  if (Array.isArray(u)) {
    for (const stage of u) {
      if (!isPlainDoc(stage) || Object.keys(stage).length !== 1) {
        throw failedToParse('A pipeline stage specification object must contain exactly one field.')
      }
      const name = Object.keys(stage)[0]
      if (!PIPELINE_UPDATE_STAGES.has(name)) {
        throw new CommandError(
          Codes.InvalidOptions,
          'InvalidOptions',
          `${name} is not allowed to be used within an update`
        )
      }
      if (name !== '$unset') validateExpression(stage[name], name === '$project' ? '$project' : undefined)
    }
    return { kind: 'pipeline', stages: u as Document[] }
  }
  if (!isPlainDoc(u)) {
    throw new CommandError(Codes.TypeMismatch, 'TypeMismatch', 'Update argument must be either an object or an array')
  }
  const keys = Object.keys(u)
  if (keys.length === 0 || !keys[0].startsWith('$')) {
    for (const k of keys) {
      if (k.startsWith('$')) {
        throw failedToParse(
          `The dollar ($) prefixed field '${k}' in '${k}' is not allowed in the context of an update's replacement document. Consider using an aggregation pipeline with $replaceWith.`
        )
      }
    }
    return { kind: 'replacement', doc: u }
  }
  const paths: string[] = []
  for (const op of keys) {
    if (!op.startsWith('$') || !UPDATE_OPERATORS.has(op)) {
      throw failedToParse(
        `Unknown modifier: ${op}. Expected a valid update modifier or pipeline-style update specified as an array`
      )
    }
    const arg = u[op]
    if (!isPlainDoc(arg)) {
      throw failedToParse(
        `Modifiers operate on fields but we found type ${typeLabel(arg)} instead. For example: {$mod: {<field>: ...}} not {${op}: ${String(arg)}}`
      )
    }
    for (const [path, v] of Object.entries(arg)) {
      if (path === '') throw failedToParse('An empty update path is not valid.')
      if (path.split('.').some((p) => p === '')) {
        throw failedToParse(`The update path '${path}' contains an empty field name, which is not allowed.`)
      }
      checkOperand(op, path, v)
      paths.push(path)
      if (op === '$rename') {
        if (typeof v !== 'string') {
          throw new CommandError(
            Codes.BadValue,
            'BadValue',
            `The 'to' field for $rename must be a string: ${path}: ${String(v)}`
          )
        }
        if (v === path) {
          throw new CommandError(
            Codes.BadValue,
            'BadValue',
            `The source and target field for $rename must differ: ${path}: "${v}"`
          )
        }
        if (v.startsWith(path + '.') || path.startsWith(v + '.')) {
          throw new CommandError(
            Codes.BadValue,
            'BadValue',
            `The source and target field for $rename must not be on the same path: ${path}: "${v}"`
          )
        }
        if (path.includes('$') || v.includes('$')) {
          throw new CommandError(Codes.BadValue, 'BadValue', `The source field for $rename may not be dynamic: ${path}`)
        }
        paths.push(v)
      }
    }
  }
  checkConflicts(paths)
  return { kind: 'operators', ops: u, paths }
}

function checkOperand (op: string, path: string, v: unknown): void {
  if ((op === '$inc' || op === '$mul') && !isNumeric(v)) {
    const verb = op === '$inc' ? 'increment' : 'multiply'
    throw new CommandError(
      Codes.TypeMismatch,
      'TypeMismatch',
      `Cannot ${verb} with non-numeric argument: {${path}: ${JSON.stringify(v)}}`
    )
  }
  if (op === '$pop' && (!isNumeric(v) || (Number(v) !== 1 && Number(v) !== -1))) {
    throw new CommandError(Codes.FailedToParse, 'FailedToParse', `$pop expects 1 or -1, found: ${String(v)}`)
  }
  if (op === '$pullAll' && !Array.isArray(v)) {
    throw new CommandError(
      Codes.BadValue,
      'BadValue',
      `$pullAll requires an array argument but was given a ${typeLabel(v)}`
    )
  }
  if (op === '$currentDate') {
    const ok = v === true || v === false || (isPlainDoc(v) && (v.$type === 'date' || v.$type === 'timestamp'))
    if (!ok) {
      throw new CommandError(
        Codes.BadValue,
        'BadValue',
        `${typeLabel(v)} is not valid type for $currentDate. Please use a boolean ('true') or a $type expression ({$type: 'timestamp/date'}).`
      )
    }
  }
  if ((op === '$push' || op === '$addToSet') && isPlainDoc(v) && '$each' in v && !Array.isArray(v.$each)) {
    throw new CommandError(
      Codes.BadValue,
      'BadValue',
      `The argument to $each in ${op} must be an array but it was of type: ${typeLabel(v.$each)}`
    )
  }
  if (op === '$push' && isPlainDoc(v) && '$each' in v) {
    for (const k of Object.keys(v)) {
      if (!['$each', '$slice', '$sort', '$position'].includes(k)) {
        throw new CommandError(Codes.BadValue, 'BadValue', `Unrecognized clause in $push: ${k}`)
      }
    }
  }
  if (op === '$bit' && !isPlainDoc(v)) {
    throw new CommandError(
      Codes.BadValue,
      'BadValue',
      `The $bit modifier is not compatible with a ${typeLabel(v)}. You must pass in an embedded document: {$bit: {field: {and/or/xor: #}}`
    )
  }
}

/** Two operators may not touch the same path or a prefix of each other (code 40). */
function checkConflicts (paths: string[]): void {
  const norm = paths.map((p) =>
    p
      .split('.')
      .filter((s) => !(s === '$' || s === '$[]' || /^\$\[\w*\]$/.test(s)))
      .join('.')
  )
  for (let i = 0; i < paths.length; i++) {
    for (let j = 0; j < i; j++) {
      const a = norm[i]
      const b = norm[j]
      if (a === b || a.startsWith(b + '.') || b.startsWith(a + '.')) {
        const [shorter, longer] = a.length <= b.length ? [paths[i], paths[j]] : [paths[j], paths[i]]
        void longer
        throw new CommandError(
          Codes.ConflictingUpdateOperators,
          'ConflictingUpdateOperators',
          `Updating the path '${paths[i]}' would create a conflict at '${shorter}'`
        )
      }
    }
  }
}
