/** One update statement against a collection (used by `update` and `findAndModify`). */
import type { Document } from 'bson'
import { CommandError, Codes } from '../../errors.js'
import type { Collection } from '../collection.js'
import type { JournalEntry } from '../../storage/types.js'
import { keyString } from '../../bson/key-string.js'
import { prepareFilter, selectPrepared, type PreparedFilter } from '../select.js'
import type { SortKey } from '../../query/sort.js'
import type { Deadline } from '../deadline.js'
import type { Collation } from '../../collation/collation.js'
import { applyUpdate, identicalDocs, surelyModified } from './apply.js'
import { parseUpdate } from './validate.js'
import { upsertSeed } from './upsert-seed.js'
import { checkUpdatedSize, prepareForStorage } from '../../commands/write-common.js'
import { isPlainDoc } from '../../bson/paths.js'
import { checkArrayFilters } from './array-filters.js'
import { markReplacement } from '../../change-streams/replacements.js'

export interface UpdateSpec {
  q: Document | undefined
  u: unknown
  multi?: boolean
  upsert?: boolean
  arrayFilters?: Document[]
  sort?: SortKey[]
  deadline?: Deadline
  hint?: unknown
  /** the statement's effective collation */
  collation?: Collation
  /** the command's `let` and the statement's `c` (update) */
  variables?: Document
  /** `q` already compiled for this collection (the command validated it first): not compiled twice */
  prepared?: PreparedFilter
}

export interface UpdateOutcome {
  n: number
  nModified: number
  upsertedId?: unknown
  /** documents before/after, for findAndModify (single statement) */
  before?: Document
  after?: Document
}

export function runUpdate (coll: Collection, spec: UpdateSpec, journal: JournalEntry[]): UpdateOutcome {
  const parsed = parseUpdate(spec.u)
  if (spec.multi === true && parsed.kind === 'replacement') {
    throw new CommandError(
      Codes.FailedToParse,
      'FailedToParse',
      'multi update is not supported for replacement-style update'
    )
  }
  if (spec.arrayFilters !== undefined) {
    if (!Array.isArray(spec.arrayFilters)) {
      throw new CommandError(
        Codes.TypeMismatch,
        'TypeMismatch',
        "BSON field 'arrayFilters' is the wrong type, expected type 'array'"
      )
    }
    for (const f of spec.arrayFilters) {
      if (!isPlainDoc(f) || Object.keys(f).length === 0) {
        throw new CommandError(
          Codes.FailedToParse,
          'FailedToParse',
          'Cannot use an expression without a top-level field name in arrayFilters'
        )
      }
    }
  }
  if (parsed.kind === 'operators') checkArrayFilters(parsed.paths, spec.arrayFilters)
  else if (spec.arrayFilters !== undefined && spec.arrayFilters.length > 0) checkArrayFilters([], spec.arrayFilters)
  const prepared = spec.prepared ?? prepareFilter(coll, spec.q, spec.variables, spec.collation)
  const { docs } = selectPrepared(coll, prepared, {
    limit: spec.multi === true ? 0 : 1,
    sort: spec.sort,
    deadline: spec.deadline,
    hint: spec.hint
  })
  const out: UpdateOutcome = { n: 0, nModified: 0 }
  for (const doc of docs) {
    const updated = applyUpdate(doc, parsed, {
      arrayFilters: spec.arrayFilters,
      query: prepared.filter,
      collation: spec.collation,
      variables: spec.variables
    })
    out.n++
    out.before = doc
    const modified = parsed.kind === 'operators' && surelyModified(doc, updated, parsed.paths)
    if (!modified && identicalDocs(updated, doc)) {
      out.after = doc
      continue
    }
    checkUpdatedSize(updated)
    if (parsed.kind === 'replacement') markReplacement(updated)
    coll.replace(doc, updated)
    journal.push({ t: 'put', db: coll.db, coll: coll.name, doc: updated })
    out.nModified++
    out.after = updated
  }
  if (docs.length === 0 && spec.upsert === true) {
    const seed = upsertSeed(spec.q)
    let doc: Document
    if (parsed.kind === 'replacement') {
      doc = applyUpdate({}, parsed)
      if (doc._id === undefined && seed._id !== undefined) doc = { _id: seed._id, ...doc }
    } else {
      doc = applyUpdate(seed, parsed, {
        arrayFilters: spec.arrayFilters,
        query: spec.q,
        isInsert: true,
        variables: spec.variables
      })
      if (seed._id !== undefined && (doc._id === undefined || keyString(doc._id) !== keyString(seed._id))) {
        throw new CommandError(
          Codes.ImmutableField,
          'ImmutableField',
          "Performing an update on the path '_id' would modify the immutable field '_id'"
        )
      }
    }
    const stored = prepareForStorage(doc)
    coll.insert(stored)
    journal.push({ t: 'put', db: coll.db, coll: coll.name, doc: stored })
    out.n = 1
    out.upsertedId = stored._id
    out.after = stored
  }
  return out
}
