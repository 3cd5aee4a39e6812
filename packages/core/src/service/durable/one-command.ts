import {
  MongoClientBulkWriteError,
  MongoServerError,
  type AnyClientBulkWriteModel,
  type ClientSession,
  type Collection,
  type Db,
  type Document,
  type MongoClient
} from 'mongodb'
import type { DurableDoc, PlannedWrite, RecordStatement } from './types.js'

/** mongod's code for a command it does not have. */
const COMMAND_NOT_FOUND = 59
const UNAUTHORIZED = 13
/** MongoDB 8.0, the first with the bulkWrite command. */
const BULK_WRITE_WIRE_VERSION = 25

const probes = new WeakMap<MongoClient, Promise<boolean>>()

/**
 * Whether the server has the bulkWrite command (MongoDB 8.0+, or @svc/devdb, which answers as
 * 7.0): asked once per client. Its wire version says so, else an empty bulkWrite is sent: a server
 * without the command answers CommandNotFound, one with it refuses the empty op list.
 */
export async function bulkWriteSupported (client: MongoClient): Promise<boolean> {
  let probe = probes.get(client)
  if (probe === undefined) {
    probe = ask(client)
    probes.set(client, probe)
  }
  return await probe
}

async function ask (client: MongoClient): Promise<boolean> {
  const admin = client.db('admin')
  const hello = await admin.command({ hello: 1 })
  if (typeof hello.maxWireVersion === 'number' && hello.maxWireVersion >= BULK_WRITE_WIRE_VERSION) return true
  try {
    await admin.command({ bulkWrite: 1, ops: [], nsInfo: [] })
    return true
  } catch (err) {
    if (!(err instanceof MongoServerError)) throw err
    return err.code !== COMMAND_NOT_FOUND && err.code !== UNAUTHORIZED
  }
}

/** `db.collection` as a bulkWrite namespace. */
export function namespaceOf (coll: Collection<any>): string {
  return `${coll.dbName}.${coll.collectionName}`
}

/**
 * The error a bulkWrite failed with, as its single-statement command would have thrown it: the
 * first write error (code and message: the envelope reads `dup key` from it) with the index of its
 * op, or the command's own error (its labels, TransientTransactionError say, are on that one).
 */
function bulkWriteFailure (err: unknown): { error: unknown } | { error: MongoServerError; index: number } {
  if (!(err instanceof MongoClientBulkWriteError)) return { error: err }
  const [first] = [...err.writeErrors].sort((a, b) => a[0] - b[0])
  if (first === undefined) return { error: err.cause ?? err }
  const [index, { code, message }] = first
  return { error: new MongoServerError({ message, errmsg: message, code }), index }
}

/** A failed bulkWrite's error as the single-statement command would have thrown it (bulkWriteFailure). */
export function unwrapBulkWriteError (err: unknown): unknown {
  return bulkWriteFailure(err).error
}

/** A one-command write: landed (the statement matched), or where it failed — the record statement, an effect document, or the command as a whole. */
export type OneCommandOutcome =
  | { ok: true; landed: boolean }
  | { ok: false; at: 'record' | 'effect'; error: MongoServerError }
  | { ok: false; at: 'command'; error: unknown }

function recordModels (ns: string, statement: RecordStatement): Array<AnyClientBulkWriteModel<Document>> {
  if ('insertOne' in statement || 'insertMany' in statement) {
    const docs = 'insertOne' in statement ? [statement.insertOne] : statement.insertMany
    return docs.map((doc) => ({ name: 'insertOne' as const, namespace: ns, document: { ...doc } }))
  }
  if ('updateOne' in statement) return [{ name: 'updateOne', namespace: ns, ...statement.updateOne }]
  return [{ name: 'deleteOne', namespace: ns, ...statement.deleteOne }]
}

/**
 * The record statement and the effect documents in one ordered bulkWrite inside the session's
 * transaction: one round trip instead of one per collection. An update or delete whose guard no
 * longer matches has not landed (the caller aborts, so its effect documents go too). On a
 * failure the transaction is aborted by the server or by the caller.
 */
export async function writeTogether (
  db: Db,
  plan: PlannedWrite,
  statement: RecordStatement,
  effects: readonly DurableDoc[],
  session: ClientSession
): Promise<OneCommandOutcome> {
  const records = recordModels(namespaceOf(plan.coll), statement)
  const models: Array<AnyClientBulkWriteModel<Document>> = [
    ...records,
    ...effects.map((e) => ({
      name: 'insertOne' as const,
      namespace: `${db.databaseName}.${e.collection}`,
      document: { ...e.document } as Document
    }))
  ]
  try {
    const r = await db.client.bulkWrite(models, { session, ordered: true })
    const landed = 'updateOne' in statement ? r.matchedCount === 1 : 'deleteOne' in statement ? r.deletedCount === 1 : true
    return { ok: true, landed }
  } catch (thrown) {
    const failure = bulkWriteFailure(thrown)
    if (!('index' in failure)) return { ok: false, at: 'command', error: failure.error }
    return { ok: false, at: failure.index < records.length ? 'record' : 'effect', error: failure.error }
  }
}
