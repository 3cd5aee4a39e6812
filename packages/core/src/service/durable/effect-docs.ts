import type { ClientSession, Db, Document } from 'mongodb'
import type { WriteResult } from '../types.js'
import type { DurableDoc, NamedEffect } from './types.js'

/**
 * Every registered effect's documents for these results, in registration order, split by
 * record: a single-record result's documents belong to its record (`own`, keyed by hex id);
 * a bulk result's (filter/records) belong to the write as a whole (`group`). So a multi-record
 * write that lands only in part (an insertMany stopped by a duplicate) leaves exactly the
 * documents of the records it wrote.
 */
export async function buildEffects (effects: readonly NamedEffect[], results: readonly WriteResult[]): Promise<{ own: Map<string, DurableDoc[]>, group: DurableDoc[], all: DurableDoc[] }> {
  const own = new Map<string, DurableDoc[]>()
  const group: DurableDoc[] = []
  const all: DurableDoc[] = []
  for (const result of results) {
    const owner = result.records === undefined && result.filter === undefined ? result.recordId : undefined
    const out = owner === undefined ? group : own.get(owner) ?? own.set(owner, []).get(owner)!
    for (const e of effects) {
      const docs = await e.build(result)
      if (!Array.isArray(docs)) throw new TypeError(`@svc/core: durable effect '${e.name}' must return an array of { collection, document }`)
      for (const d of docs) {
        if (typeof d?.collection !== 'string' || d.collection === '' || d.document == null || d.document._id === undefined) {
          throw new TypeError(`@svc/core: durable effect '${e.name}' returned a document without collection or _id`)
        }
        out.push(d)
        all.push(d)
      }
    }
  }
  return { own, group, all }
}

function isDuplicateKey (err: unknown): boolean {
  const e = err as { code?: number, writeErrors?: unknown }
  if (e?.code === 11000) return true
  const list = Array.isArray(e?.writeErrors) ? e.writeErrors : e?.writeErrors === undefined ? [] : [e.writeErrors]
  return list.length > 0 && list.every((w: { code?: number }) => w.code === 11000)
}

/**
 * Inserts effect documents, one unordered insertMany per collection. A duplicate key is
 * success only when every document's `_id` is now there (a replay); a duplicate on another
 * unique index is a refusal like any other.
 */
export async function insertEffects (db: Db, docs: readonly DurableDoc[], session?: ClientSession): Promise<void> {
  const byCollection = new Map<string, Document[]>()
  for (const d of docs) byCollection.set(d.collection, [...(byCollection.get(d.collection) ?? []), d.document])
  await Promise.all([...byCollection].map(async ([name, list]) => {
    const coll = db.collection<Document>(name)
    try {
      await coll.insertMany(list.map((doc) => ({ ...doc })), { ordered: false, ...(session !== undefined ? { session } : {}) })
    } catch (err) {
      if (session !== undefined || !isDuplicateKey(err)) throw err
      const present = await coll.countDocuments({ _id: { $in: list.map((d) => d._id) } })
      if (present < list.length) throw err
    }
  }))
}
