/**
 * Applies a parsed update to a copy of a document. Operator semantics come from mingo's updater;
 * this wrapper adds what mingo lacks or does differently: $setOnInsert, $currentDate types, type
 * errors on non-numeric/non-array targets, `_id` immutability, and pipeline updates.
 */
import { Timestamp, serialize, type Document } from 'bson'
import { update as mingoUpdate } from 'mingo/updater'
import { Aggregator } from 'mingo/aggregator'
import { CommandError, Codes } from '../../errors.js'
import { bsonTypeName, isNumeric } from '../../bson/bson-order.js'
import { getPath, isPlainDoc, MISSING } from '../../bson/paths.js'
import { keyString } from '../../bson/key-string.js'
import { formatValue } from '../../bson/format-value.js'
import { compileFilter, mingoOptions, sharedMingoOptions } from '../../query/options.js'
import { translateMingoError } from '../../query/mingo-errors.js'
import { normalizeFilter } from '../../query/normalize-filter.js'
import type { ParsedUpdate } from './validate.js'
import type { Collation } from '../../collation/collation.js'
import { numKind } from '../../bson/numeric.js'
import { cloneDoc } from './clone.js'
import { concretize, isPositional } from './positional.js'
import { TYPED_OPERATORS, applyTypedOperators, setAt } from './typed-ops.js'

export { cloneDoc }

export interface ApplyOptions {
  arrayFilters?: Document[]
  query?: Document
  isInsert?: boolean
  /** the statement's collation: the query is re-matched (for positional `$`) under it */
  collation?: Collation
  /** `let`/`c` variables, seen by a pipeline update */
  variables?: Document
}

function idLabel (doc: Document): string {
  return `{_id: ${formatValue(doc._id)}}`
}

function checkTargets (doc: Document, ops: Document): void {
  for (const [op, arg] of Object.entries(ops)) {
    for (const path of Object.keys(arg as Document)) {
      if (isPositional(path)) {
        checkArrayUpdateTarget(doc, path)
        continue
      }
      if (op === '$rename') {
        checkRenameSide(doc, path, 'source')
        checkRenameSide(doc, String((arg as Document)[path]), 'destination')
      }
      const cur = getPath(doc, path)
      checkTraversal(doc, path, CREATING.has(op))
      if (cur === MISSING) continue
      const last = path.split('.').pop() ?? path
      const t = bsonTypeName(cur)
      if ((op === '$inc' || op === '$mul') && !isNumeric(cur)) {
        throw new CommandError(
          Codes.TypeMismatch,
          'TypeMismatch',
          `Cannot apply ${op} to a value of non-numeric type. ${idLabel(doc)} has the field '${last}' of non-numeric type ${t}`
        )
      }
      if (op === '$push' && !Array.isArray(cur)) {
        throw new CommandError(
          Codes.BadValue,
          'BadValue',
          `The field '${path}' must be an array but is of type ${t} in document ${idLabel(doc)}`
        )
      }
      if (op === '$addToSet' && !Array.isArray(cur)) {
        throw new CommandError(
          Codes.BadValue,
          'BadValue',
          `Cannot apply $addToSet to non-array field. Field named '${last}' has non-array type ${t}`
        )
      }
      if (op === '$pop' && !Array.isArray(cur)) {
        throw new CommandError(
          Codes.TypeMismatch,
          'TypeMismatch',
          `Path '${path}' contains an element of non-array type '${t}'`
        )
      }
      if ((op === '$pull' || op === '$pullAll') && !Array.isArray(cur)) {
        throw new CommandError(Codes.BadValue, 'BadValue', 'Cannot apply $pull to a non-array value')
      }
      if (op === '$bit' && numKind(cur) !== 'int' && numKind(cur) !== 'long') {
        throw new CommandError(
          Codes.BadValue,
          'BadValue',
          `Cannot apply $bit to a value of non-integral type.${idLabel(doc)} has the field ${last} of non-integer type ${t}`
        )
      }
    }
  }
}

/** $rename cannot move from or into an array element (mongod: BadValue). */
function checkRenameSide (doc: Document, path: string, side: 'source' | 'destination'): void {
  const parts = path.split('.')
  let cur: unknown = doc
  for (let i = 0; i < parts.length - 1; i++) {
    if (!isPlainDoc(cur)) return
    cur = cur[parts[i]]
    if (Array.isArray(cur)) {
      throw new CommandError(
        Codes.BadValue,
        'BadValue',
        `The ${side} field cannot be an array element, '${path}' in doc with _id: ${formatValue(doc._id)} has an array field called '${parts[i]}'`
      )
    }
  }
}

/** `a.$[]`/`a.$[x]` need `a` to be an array when it exists (mongod: BadValue). */
function checkArrayUpdateTarget (doc: Document, path: string): void {
  const parts = path.split('.')
  const i = parts.findIndex((p) => p.startsWith('$['))
  if (i <= 0 || parts.slice(0, i).some((p) => p.startsWith('$'))) return
  const prefix = parts.slice(0, i).join('.')
  const v = getPath(doc, prefix)
  if (v !== MISSING && !Array.isArray(v)) {
    throw new CommandError(
      Codes.BadValue,
      'BadValue',
      `Cannot apply array updates to non-array element ${parts[i - 1]}: ${formatValue(v)}`
    )
  }
}

/** Setting `a.b` where `a` is a scalar fails with PathNotViable (28), as in mongod. */
/** Operators that create their field when it is missing (the others leave a missing path alone). */
const CREATING = new Set([
  '$set',
  '$setOnInsert',
  '$inc',
  '$mul',
  '$min',
  '$max',
  '$push',
  '$addToSet',
  '$currentDate',
  '$bit'
])

/**
 * The path can be walked, or created: no scalar on the way; an array is entered by index only —
 * for an operator that creates its field, the last part too (`$set: { 'a.b': 1 }` on an array
 * `a` is PathNotViable in mongod, not a no-op).
 */
function checkTraversal (doc: Document, path: string, creating: boolean): void {
  const parts = path.split('.')
  let cur: unknown = doc
  for (let i = 0; i < parts.length; i++) {
    if (i === parts.length - 1) {
      if (creating && Array.isArray(cur) && !/^\d+$/.test(parts[i])) {
        throw new CommandError(
          28,
          'PathNotViable',
          `Cannot create field '${parts[i]}' in element {${parts[i - 1]}: ${formatValue(cur)}}`
        )
      }
      return
    }
    if (Array.isArray(cur)) {
      if (!/^\d+$/.test(parts[i])) {
        throw new CommandError(
          28,
          'PathNotViable',
          `Cannot create field '${parts[i]}' in element {${parts[i - 1]}: ${formatValue(cur)}}`
        )
      }
      cur = cur[Number(parts[i])]
    } else if (isPlainDoc(cur)) {
      cur = cur[parts[i]]
    } else return
    if (cur === undefined) return
    if (!isPlainDoc(cur) && !Array.isArray(cur)) {
      throw new CommandError(
        28,
        'PathNotViable',
        `Cannot create field '${parts[i + 1]}' in element {${parts[i]}: ${formatValue(cur)}}`
      )
    }
  }
}

function immutableIdError (): CommandError {
  return new CommandError(
    Codes.ImmutableField,
    'ImmutableField',
    "Performing an update on the path '_id' would modify the immutable field '_id'"
  )
}

/**
 * One Aggregator per statement, not per document: an `updateMany` with a pipeline (the event
 * log stamps its batches with one) compiles its options once, and every document reads the same
 * `$$NOW`. Kept while the statement's parsed form lives, for the variables it ran with.
 */
const pipelines = new WeakMap<ParsedUpdate, { variables: Document | undefined; agg: Aggregator }>()

function pipelineOf (parsed: ParsedUpdate & { kind: 'pipeline' }, variables: Document | undefined): Aggregator {
  const cached = pipelines.get(parsed)
  if (cached !== undefined && cached.variables === variables) return cached.agg
  // `$$NOW` is one value for the whole statement, as on mongod.
  const agg = new Aggregator(
    parsed.stages,
    sharedMingoOptions(variables !== undefined ? { variables } : {}, Date.now())
  )
  pipelines.set(parsed, { variables, agg })
  return agg
}

export function applyUpdate (doc: Document, parsed: ParsedUpdate, opts: ApplyOptions = {}): Document {
  if (parsed.kind === 'replacement') {
    const rep = cloneDoc(parsed.doc)
    if (rep._id !== undefined && doc._id !== undefined && keyString(rep._id) !== keyString(doc._id)) {
      throw new CommandError(
        Codes.ImmutableField,
        'ImmutableField',
        `After applying the update, the (immutable) field '_id' was found to have been altered to _id: ${formatValue(rep._id)}`
      )
    }
    const { _id: _ignored, ...rest } = rep
    return doc._id === undefined ? rep : { _id: doc._id, ...rest }
  }
  if (parsed.kind === 'pipeline') {
    let out: Document
    try {
      out = pipelineOf(parsed, opts.variables).run([cloneDoc(doc)])[0] as Document
    } catch (e) {
      throw translateMingoError(e)
    }
    if (out._id === undefined && doc._id !== undefined) out = { _id: doc._id, ...out }
    else if (doc._id !== undefined && keyString(out._id) !== keyString(doc._id)) throw immutableIdError()
    return out
  }
  const ops: Document = {}
  for (const [op, arg] of Object.entries(parsed.ops)) {
    if (op === '$setOnInsert') {
      if (opts.isInsert === true) ops.$set = { ...(ops.$set ?? {}), ...arg }
      continue
    }
    if (op === '$currentDate') {
      const set: Document = ops.$set ?? {}
      for (const [path, spec] of Object.entries(arg as Document)) {
        set[path] =
          isPlainDoc(spec) && spec.$type === 'timestamp'
            ? new Timestamp({ t: Math.floor(Date.now() / 1000), i: 1 })
            : new Date()
      }
      ops.$set = set
      continue
    }
    ops[op] = op === '$set' && ops.$set !== undefined ? { ...ops.$set, ...arg } : arg
  }
  // Setting _id to its current value is allowed (a no-op); any other change fails with 66.
  // An upsert without _id in its query may take it from $set (mingo refuses any _id path).
  let seededId: unknown
  if (isPlainDoc(ops.$set) && '_id' in ops.$set) {
    if (doc._id !== undefined && keyString(ops.$set._id) !== keyString(doc._id)) throw immutableIdError()
    if (doc._id === undefined) seededId = ops.$set._id
    const { _id: _same, ...rest } = ops.$set
    ops.$set = rest
  }
  const out = cloneDoc(doc)
  if (seededId !== undefined) out._id = cloneDoc(seededId)
  checkTargets(out, ops)
  // mongod 5.0+: an update may not write a top-level `$`-prefixed field of an existing document;
  // an upsert's new document may have one (it is validated as an insert), as may nested fields.
  if (opts.isInsert !== true) {
    for (const arg of Object.values(ops)) {
      for (const path of Object.keys(arg as Document)) {
        const first = path.split('.')[0]
        if (first.startsWith('$') && !isPositional(first)) {
          throw new CommandError(
            52,
            'DollarPrefixedFieldName',
            `The dollar ($) prefixed field '${first}' in '${path}' is not valid for storage.`
          )
        }
      }
    }
  }
  const queryOptions = mingoOptions(opts.collation !== undefined ? { collation: opts.collation as never } : {})
  // The query only serves positional `$` resolution; an upserted seed need not match it.
  const query = opts.isInsert === true || opts.query === undefined ? undefined : normalizeFilter(opts.query)
  let concrete: Document
  try {
    concrete = concretize(out, ops, opts.arrayFilters, query, queryOptions)
  } catch (e) {
    throw translateUpdateError(e)
  }
  if (concrete !== ops) checkTargets(out, concrete)
  applyTypedOperators(
    out,
    concrete,
    (filter) => compileFilter(filter, opts.collation !== undefined ? { collation: opts.collation as never } : {}),
    opts.collation?.compare
  )
  const rest = dollarFields(
    out,
    Object.fromEntries(Object.entries(concrete).filter(([op]) => !TYPED_OPERATORS.has(op)))
  )
  try {
    if (Object.keys(rest).length > 0 && !applyPlainFields(out, rest)) {
      mingoUpdate(out, rest, undefined, undefined, { cloneMode: 'none', queryOptions })
    }
  } catch (e) {
    throw translateUpdateError(e)
  }
  // mingo skips a $set whose value is "equal" ignoring field order or number types; mongod
  // compares bytes, so re-assign the exact value (idempotent for everything else).
  for (const [path, value] of Object.entries((concrete.$set ?? {}) as Document)) {
    assignExisting(out, path, cloneDoc(value))
  }
  if (doc._id !== undefined && (out._id === undefined || keyString(out._id) !== keyString(doc._id))) {
    throw immutableIdError()
  }
  return out
}

/**
 * `$set`/`$unset` of paths whose first field is `$`-prefixed (`$myKey`; mongod 5.0+ takes them,
 * mingo refuses them) applied here; the other operators are returned for mingo.
 */
function dollarFields (doc: Document, ops: Document): Document {
  const rest: Document = { ...ops }
  for (const op of ['$set', '$unset']) {
    const arg = rest[op]
    if (!isPlainDoc(arg) || !Object.keys(arg).some((p) => p.startsWith('$'))) continue
    const left: Document = {}
    for (const [path, v] of Object.entries(arg)) {
      if (!path.startsWith('$')) left[path] = v
      else if (op === '$set') setAt(doc, path, cloneDoc(v))
      else unsetAt(doc, path)
    }
    if (Object.keys(left).length > 0) rest[op] = left
    else delete rest[op]
  }
  return rest
}

/**
 * `$set`/`$unset` alone whose paths run through documents only (no array on the way) applied
 * here, as mingo would; false (nothing done) for anything else. mingo's updater builds its
 * operator tables afresh on every call, which made it the bulk of a small update's cost.
 */
function applyPlainFields (doc: Document, ops: Document): boolean {
  for (const [op, arg] of Object.entries(ops)) {
    if ((op !== '$set' && op !== '$unset') || !isPlainDoc(arg)) return false
    for (const path of Object.keys(arg)) if (!throughDocuments(doc, path)) return false
  }
  for (const [path, v] of Object.entries((ops.$set ?? {}) as Document)) setAt(doc, path, cloneDoc(v))
  for (const path of Object.keys((ops.$unset ?? {}) as Document)) unsetAt(doc, path)
  return true
}

/** Every field above the path's last is a document or missing (then created as one); no odd names. */
function throughDocuments (doc: Document, path: string): boolean {
  const parts = path.split('.')
  if (parts.some((p) => p === '' || p === '__proto__')) return false
  let cur: unknown = doc
  for (let i = 0; i < parts.length - 1 && cur !== undefined; i++) {
    if (!isPlainDoc(cur)) return false
    cur = Object.hasOwn(cur, parts[i]) ? cur[parts[i]] : undefined
  }
  return cur === undefined || isPlainDoc(cur)
}

function unsetAt (doc: Document, path: string): void {
  const parts = path.split('.')
  const parent = parts.length === 1 ? doc : getPath(doc, parts.slice(0, -1).join('.'))
  const leaf = parts[parts.length - 1]
  if (Array.isArray(parent) && /^\d+$/.test(leaf) && Number(leaf) < parent.length) parent[Number(leaf)] = null
  else if (isPlainDoc(parent)) delete parent[leaf]
}

function assignExisting (doc: Document, path: string, value: unknown): void {
  const parts = path.split('.')
  let cur: unknown = doc
  for (let i = 0; i < parts.length - 1; i++) {
    if (Array.isArray(cur)) cur = cur[Number(parts[i])]
    else if (isPlainDoc(cur)) cur = cur[parts[i]]
    else return
  }
  const last = parts[parts.length - 1]
  if (Array.isArray(cur) && /^\d+$/.test(last) && Number(last) < cur.length) cur[Number(last)] = value
  else if (isPlainDoc(cur) && Object.prototype.hasOwnProperty.call(cur, last)) cur[last] = value
}

function translateUpdateError (e: unknown): CommandError {
  if (e instanceof CommandError) return e
  const msg = e instanceof Error ? e.message : String(e)
  if (/immutable field/.test(msg)) return immutableIdError()
  if (/positional operator found no match|must include the array field for '\.\$'/.test(msg)) {
    return new CommandError(
      Codes.BadValue,
      'BadValue',
      'The positional operator did not find the match needed from the query.'
    )
  }
  if (/Dollar \(\$\) prefixed field paths/.test(msg)) {
    return new CommandError(Codes.BadValue, 'BadValue', msg.replace(/\.$/, ''))
  }
  if (/conflict/i.test(msg)) {
    return new CommandError(
      Codes.ConflictingUpdateOperators,
      'ConflictingUpdateOperators',
      msg.replace(/^updating/, 'Updating')
    )
  }
  if (/arrayFilters|array filter|identifier/i.test(msg)) return new CommandError(Codes.BadValue, 'BadValue', msg)
  return new CommandError(Codes.BadValue, 'BadValue', msg)
}

/** True when two documents are byte-for-byte the same BSON (mongod's test for "modified": a type change counts). */
export function identicalDocs (a: Document, b: Document): boolean {
  return Buffer.from(serialize(a)).equals(serialize(b))
}

/**
 * True when an operator update certainly changed the document's BSON, judged from the top-level
 * fields its paths touch alone: one is present before or after only, or holds another string,
 * number, boolean or date (values that serialize differently). False means undecided, not
 * unchanged: the caller compares the whole documents (identicalDocs), which is what most updates
 * — a new `updatedAt`, a stamp, a renewed lease — spare.
 */
export function surelyModified (before: Document, after: Document, paths: readonly string[]): boolean {
  for (const path of paths) {
    const dot = path.indexOf('.')
    const field = dot < 0 ? path : path.slice(0, dot)
    const had = Object.hasOwn(before, field)
    if (had !== Object.hasOwn(after, field)) return true
    if (!had) continue
    const a: unknown = before[field]
    const b: unknown = after[field]
    if (a === b) continue
    if (typeof a === 'string' && typeof b === 'string') return true
    if (typeof a === 'boolean' && typeof b === 'boolean') return true
    // NaN !== NaN, yet both serialize alike: undecided.
    if (typeof a === 'number' && typeof b === 'number' && !(Number.isNaN(a) && Number.isNaN(b))) return true
    if (
      a instanceof Date &&
      b instanceof Date &&
      a.getTime() !== b.getTime() &&
      !Number.isNaN(a.getTime() + b.getTime())
    ) {
      return true
    }
  }
  return false
}
