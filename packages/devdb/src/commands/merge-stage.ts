/**
 * $merge (final stage) into a collection of the same server: `into`, `on` (default `_id`; other
 * fields need a unique index, as in mongod), `whenMatched` replace/keepExisting/merge/fail and
 * `whenNotMatched` insert/discard/fail. Pipeline-style whenMatched is refused. Like mongod, the
 * writes are not atomic as a whole: documents merged before an error stay merged.
 */
import { ObjectId, type Document } from 'bson'
import { CommandError, Codes } from '../errors.js'
import type { CommandContext } from './context.js'
import { isPlainDoc, getPath, MISSING } from '../bson/paths.js'
import { assertValidCollectionName } from '../engine/collection.js'
import { keyString } from '../bson/key-string.js'
import { prepareForStorage } from './write-common.js'
import { duplicateKeyError } from '../engine/index-def.js'
import { cloneDoc } from '../engine/update/clone.js'
import { select } from '../engine/select.js'

interface MergeSpec {
  db: string
  coll: string
  on: string[]
  whenMatched: string
  whenNotMatched: string
}

export function parseMerge (spec: unknown, defaultDb: string): MergeSpec {
  let into: unknown = spec
  let on: unknown = '_id'
  let whenMatched: unknown = 'merge'
  let whenNotMatched: unknown = 'insert'
  if (isPlainDoc(spec)) {
    into = spec.into
    if (spec.on !== undefined) on = spec.on
    if (spec.whenMatched !== undefined) whenMatched = spec.whenMatched
    if (spec.whenNotMatched !== undefined) whenNotMatched = spec.whenNotMatched
    if (spec.let !== undefined) {
      throw new CommandError(Codes.NotImplemented, 'NotImplemented', '$merge let is not supported by devdb')
    }
  }
  let db = defaultDb
  let coll: unknown = into
  if (isPlainDoc(into)) {
    db = typeof into.db === 'string' ? into.db : defaultDb
    coll = into.coll
  }
  if (typeof coll !== 'string') {
    throw new CommandError(
      51178,
      'Location51178',
      "$merge 'into' field  must be either a string or an object, but found " + typeof coll
    )
  }
  assertValidCollectionName(coll)
  const onFields =
    typeof on === 'string'
      ? [on]
      : Array.isArray(on) && on.every((f) => typeof f === 'string') && on.length > 0
        ? (on as string[])
        : undefined
  if (onFields === undefined) {
    throw new CommandError(51186, 'Location51186', "$merge 'on' field must be either a string or an array of strings")
  }
  if (Array.isArray(whenMatched)) {
    throw new CommandError(
      Codes.NotImplemented,
      'NotImplemented',
      '$merge with a whenMatched pipeline is not supported by devdb'
    )
  }
  if (!['replace', 'keepExisting', 'merge', 'fail'].includes(String(whenMatched))) {
    throw new CommandError(
      Codes.BadValue,
      'BadValue',
      `Enumeration value '${String(whenMatched)}' for field '$merge.whenMatched' is not a valid value.`
    )
  }
  if (!['insert', 'discard', 'fail'].includes(String(whenNotMatched))) {
    throw new CommandError(
      Codes.BadValue,
      'BadValue',
      `Enumeration value '${String(whenNotMatched)}' for field '$merge.whenNotMatched' is not a valid value.`
    )
  }
  return { db, coll, on: onFields, whenMatched: String(whenMatched), whenNotMatched: String(whenNotMatched) }
}

export function writeMerge (raw: unknown, results: Document[], ctx: CommandContext): void {
  const spec = parseMerge(raw, ctx.db)
  const catalog = ctx.server.catalog
  const target = catalog.get(spec.db, spec.coll) ?? catalog.create(spec.db, spec.coll, {}, ctx.journal)
  const onId = spec.on.length === 1 && spec.on[0] === '_id'
  // The unique index that makes the 'on' fields a key ('_id_' for the default).
  const onIndex = target.indexes.find(
    (ix) =>
      ix.unique &&
      ix.partial === undefined &&
      !ix.sparse &&
      ix.fields.length === spec.on.length &&
      spec.on.every((f) => ix.fields.includes(f))
  )
  if (onIndex === undefined) {
    throw new CommandError(51183, 'Location51183', 'Cannot find index to verify that join fields will be unique')
  }
  for (const r of results) {
    let doc = cloneDoc(r)
    if (onId && doc._id === undefined) doc = { _id: new ObjectId(), ...doc }
    const values = spec.on.map((f) => getPath(doc, f))
    if (values.some((v) => v === MISSING || Array.isArray(v))) {
      throw new CommandError(
        51132,
        'Location51132',
        "$merge write error: 'on' field cannot be missing, null, undefined or an array"
      )
    }
    const wanted = values.map(keyString).join('|')
    let existing: Document | undefined
    if (onId) existing = target.getById(doc._id)
    else {
      for (const d of select(
        target,
        Object.fromEntries(spec.on.map((f, i) => [f, { $eq: values[i] }])),
        {},
        undefined,
        target.collation
      ).docs) {
        if (
          spec.on
            .map((f) => {
              const v = getPath(d, f)
              return v === MISSING ? 'N' : keyString(v)
            })
            .join('|') === wanted
        ) {
          existing = d
          break
        }
      }
    }
    if (existing === undefined) {
      if (spec.whenNotMatched === 'discard') continue
      if (spec.whenNotMatched === 'fail') {
        throw new CommandError(
          13113,
          'MergeStageNoMatchingDocument',
          '$merge could not find a matching document in the target collection for at least one document in the source collection'
        )
      }
      const stored = prepareForStorage(doc)
      target.insert(stored)
      ctx.journal.push({ t: 'put', db: spec.db, coll: spec.coll, doc: stored })
      continue
    }
    if (spec.whenMatched === 'keepExisting') continue
    if (spec.whenMatched === 'fail') {
      // mongod inserts in this mode: the target's unique index refuses the document (E11000 with keyPattern/keyValue).
      throw duplicateKeyError(
        target.ns,
        onIndex,
        onIndex.fields.map((f) => getPath(doc, f))
      )
    }
    const { _id: _ignored, ...rest } = doc
    const next: Document = spec.whenMatched === 'replace' ? { _id: existing._id, ...rest } : { ...existing, ...rest }
    target.replace(existing, next)
    ctx.journal.push({ t: 'put', db: spec.db, coll: spec.coll, doc: next })
  }
}
