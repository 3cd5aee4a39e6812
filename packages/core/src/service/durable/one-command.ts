import {
  MongoClientBulkWriteError,
  MongoServerError,
  type AnyClientBulkWriteModel,
  type ClientSession,
  type Db,
  type Document,
  type MongoClient
} from 'mongodb'
import type { DurableDoc, PlannedWrite } from './types.js'

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

/** Where a failed one-command write failed: the record inserts, an effect document, or the command as a whole. */
export type OneCommandFailure =
  | { at: 'record'; error: MongoServerError }
  | { at: 'effect'; error: MongoServerError }
  | { at: 'command'; error: unknown }

/**
 * A create's record inserts and its effect documents in one ordered bulkWrite inside the
 * session's transaction: one round trip instead of one per collection. Answers null when all
 * landed, else where it failed (the transaction is then aborted by the server or by the caller).
 */
export async function insertTogether (
  db: Db,
  plan: PlannedWrite & { inserts: readonly Document[] },
  effects: readonly DurableDoc[],
  session: ClientSession
): Promise<OneCommandFailure | null> {
  const models: Array<AnyClientBulkWriteModel<Document>> = [
    ...plan.inserts.map((doc) => ({
      name: 'insertOne' as const,
      namespace: `${plan.coll.dbName}.${plan.coll.collectionName}`,
      document: { ...doc }
    })),
    ...effects.map((e) => ({
      name: 'insertOne' as const,
      namespace: `${db.databaseName}.${e.collection}`,
      document: { ...e.document }
    }))
  ]
  try {
    await db.client.bulkWrite(models, { session, ordered: true })
    return null
  } catch (err) {
    if (!(err instanceof MongoClientBulkWriteError)) return { at: 'command', error: err }
    const [first] = [...err.writeErrors].sort((a, b) => a[0] - b[0])
    if (first === undefined) return { at: 'command', error: err.cause ?? err }
    const [index, { code, message }] = first
    // As the insert command would have thrown it: the envelope reads code and `dup key` from it.
    const error = new MongoServerError({ message, errmsg: message, code })
    return { at: index < plan.inserts.length ? 'record' : 'effect', error }
  }
}
