/**
 * The generic arguments mongod checks on every command before (and after) running it: `apiVersion`
 * / `apiStrict` (Stable API), `readConcern` levels the command does not support, and write concerns
 * one node cannot satisfy.
 */
import type { Document } from 'bson'
import { CommandError, Codes } from '../errors.js'
import { isPlainDoc } from '../bson/paths.js'
import { isNumeric, toNumber } from '../bson/bson-order.js'

/** Commands of Stable API version 1 (mongod 7.0). */
const API_V1 = new Set([
  'abortTransaction',
  'aggregate',
  'authenticate',
  'collMod',
  'commitTransaction',
  'count',
  'create',
  'createIndexes',
  'delete',
  'drop',
  'dropDatabase',
  'dropIndexes',
  'endSessions',
  'explain',
  'find',
  'findAndModify',
  'getMore',
  'hello',
  'insert',
  'killCursors',
  'listCollections',
  'listDatabases',
  'listIndexes',
  'ping',
  'refreshSessions',
  'update'
])
/** Aggregation stages outside API version 1 that devdb knows. */
const NON_API_V1_STAGES = new Set([
  '$listLocalSessions',
  '$currentOp',
  '$indexStats',
  '$collStats',
  '$planCacheStats',
  '$listSessions'
])

/** Commands that read at a snapshot outside a transaction (mongod 5.0+). */
export const SNAPSHOT_READS = new Set(['find', 'aggregate', 'distinct'])

export function checkApiVersion (name: string, body: Document): void {
  if ((body.apiStrict !== undefined || body.apiDeprecationErrors !== undefined) && body.apiVersion === undefined) {
    throw new CommandError(
      4886600,
      'Location4886600',
      'Provided apiStrict and/or apiDeprecationErrors without passing apiVersion'
    )
  }
  if (body.apiVersion !== undefined && body.apiVersion !== '1') {
    throw new CommandError(322, 'APIVersionError', 'API version must be "1"')
  }
  if (body.apiStrict !== true) return
  if (!API_V1.has(name)) {
    throw new CommandError(
      323,
      'APIStrictError',
      `Provided apiStrict:true, but the command ${name} is not in API Version 1. Information on supported commands and migrations in API Version 1 can be found at https://dochub.mongodb.org/core/manual-versioned-api`
    )
  }
  if (name === 'aggregate' && Array.isArray(body.pipeline)) {
    for (const stage of body.pipeline) {
      const stageName = isPlainDoc(stage) ? Object.keys(stage)[0] : undefined
      if (stageName !== undefined && NON_API_V1_STAGES.has(stageName)) {
        throw new CommandError(
          323,
          'APIStrictError',
          `${stageName} is not allowed with 'apiStrict: true' in API Version 1`
        )
      }
    }
  }
}

/** The command's `readConcern` (TypeMismatch when it is not a document). */
export function readConcernOf (body: Document): Document | undefined {
  const rc = body.readConcern
  if (rc === undefined || rc === null) return undefined
  if (!isPlainDoc(rc)) {
    throw new CommandError(
      Codes.TypeMismatch,
      'TypeMismatch',
      "BSON field 'readConcern' is the wrong type, expected type 'object'"
    )
  }
  return rc
}

function unsupported (name: string, level: string, cause: string): CommandError {
  return new CommandError(
    Codes.InvalidOptions,
    'InvalidOptions',
    `Command ${name} does not support { readConcern: { level: "${level}" } } :: caused by :: ${cause}`
  )
}

/**
 * Read concerns a command outside a transaction refuses, as mongod's `supportsReadConcern`, then
 * what a standalone cannot wait for (no oplog, no cluster time).
 */
export function checkReadConcern (name: string, body: Document, rc: Document | undefined, standalone: boolean): void {
  const level = rc?.level
  if (level === 'snapshot' && !SNAPSHOT_READS.has(name)) throw unsupported(name, level, 'read concern not supported')
  if (level === 'linearizable' && name === 'aggregate' && Array.isArray(body.pipeline)) {
    const last = body.pipeline[body.pipeline.length - 1]
    const stage = isPlainDoc(last) ? Object.keys(last)[0] : undefined
    if (stage === '$out' || stage === '$merge') {
      throw unsupported(name, level, `${stage} cannot be used with a 'linearizable' read concern level`)
    }
  }
  if (!standalone || rc === undefined) return
  if (level === 'snapshot') throw notAReplicaSet('node needs to be a replica set member to use readConcern: snapshot')
  if (
    level === 'linearizable' ||
    rc.afterClusterTime !== undefined ||
    rc.atClusterTime !== undefined ||
    rc.afterOpTime !== undefined
  ) {
    throw notAReplicaSet('node needs to be a replica set member to use read concern')
  }
}

function notAReplicaSet (msg: string): CommandError {
  return new CommandError(123, 'NotAReplicaSet', msg)
}

/**
 * The `writeConcernError` mongod adds, once the command has run, when a single-node replica set
 * cannot satisfy `w`: more than one node (100), or a tag set that does not exist (79).
 */
export function writeConcernError (body: Document): Document | undefined {
  const wc = body.writeConcern
  if (!isPlainDoc(wc)) return undefined
  const w = wc.w
  if (isNumeric(w) && toNumber(w) > 1) {
    return { code: 100, codeName: 'UnsatisfiableWriteConcern', errmsg: 'Not enough data-bearing nodes' }
  }
  if (typeof w === 'string' && w !== 'majority') {
    return {
      code: 79,
      codeName: 'UnknownReplWriteConcern',
      errmsg: `No write concern mode named '${w}' found in replica set configuration`
    }
  }
  return undefined
}
