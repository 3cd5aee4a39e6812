/** Shared pieces of the write commands: batch checks, stored-document validation, write errors. */
import { ObjectId, calculateObjectSize, type Document } from 'bson'
import { MAX_BSON_OBJECT_SIZE } from '../wire/messages.js'
import { CommandError, Codes } from '../errors.js'
import { bsonTypeName } from '../bson/bson-order.js'
import { isPlainDoc } from '../bson/paths.js'

export function batchArg (cmd: Document, field: string, cmdName: string): Document[] {
  const v = cmd[field]
  if (!Array.isArray(v)) {
    throw new CommandError(
      Codes.TypeMismatch,
      'TypeMismatch',
      `BSON field '${cmdName}.${field}' is the wrong type, expected type 'array'`
    )
  }
  if (v.length === 0 || v.length > 100000) {
    throw new CommandError(
      Codes.InvalidLength,
      'InvalidLength',
      `Write batch sizes must be between 1 and 100000. Got ${v.length} operations.`
    )
  }
  return v
}

/** Validates a document about to be stored and returns it with `_id` first (generated if absent). */
export function prepareForStorage (doc: unknown, generateId = true): Document {
  if (!isPlainDoc(doc)) throw new CommandError(Codes.TypeMismatch, 'TypeMismatch', 'document must be an object')
  // Since MongoDB 5.0 `$`-prefixed and dotted field names may be stored, top level included: only `_id` is checked.
  if (doc._id !== undefined) checkId(doc._id)
  const size = calculateObjectSize(doc)
  if (size > MAX_BSON_OBJECT_SIZE) {
    throw new CommandError(
      Codes.BadValue,
      'BadValue',
      `object to insert too large. size in bytes: ${size}, max size: ${MAX_BSON_OBJECT_SIZE}`
    )
  }
  if (doc._id === undefined) {
    if (!generateId) return doc
    return { _id: new ObjectId(), ...doc }
  }
  const keys = Object.keys(doc)
  if (keys[0] === '_id') return doc
  const { _id, ...rest } = doc
  return { _id, ...rest }
}

/** A document an update produced may not pass 16 MB (mongod: 17419). */
export function checkUpdatedSize (doc: Document): void {
  if (calculateObjectSize(doc) > MAX_BSON_OBJECT_SIZE) {
    throw new CommandError(
      17419,
      'Location17419',
      `Resulting document after update is larger than ${MAX_BSON_OBJECT_SIZE}`
    )
  }
}

export function checkId (id: unknown): void {
  const t = bsonTypeName(id)
  if (t === 'array') throw new CommandError(53, 'InvalidIdField', "The '_id' value cannot be of type array")
  if (t === 'regex') throw new CommandError(53, 'InvalidIdField', "can't use a regex for _id")
  if (t === 'undefined') throw new CommandError(53, 'InvalidIdField', "can't use a undefined for _id")
  if (isPlainDoc(id)) {
    for (const k of Object.keys(id)) {
      if (k.startsWith('$')) {
        throw new CommandError(
          Codes.BadValue,
          'BadValue',
          `_id fields may not contain '$'-prefixed fields: ${k} is not valid for storage.`
        )
      }
    }
  }
}

export function writeError (index: number, e: unknown): Document {
  if (e instanceof CommandError) {
    return { index, code: e.code, errmsg: e.message, ...e.extra }
  }
  return { index, code: Codes.InternalError, errmsg: e instanceof Error ? e.message : String(e) }
}

/** A write command's reply in mongod's field order: counts, then writeErrors (when any), then ok. */
export function writeReply (counts: Document, writeErrors: Document[]): Document {
  const reply: Document = { ...counts }
  if (writeErrors.length > 0) reply.writeErrors = writeErrors
  reply.ok = 1
  return reply
}
