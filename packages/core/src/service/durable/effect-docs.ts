import { BSON, type ClientSession, type Db, type Document } from 'mongodb'
import type { WriteResult } from '../types.js'
import type { DurableDoc, NamedEffect, PlannedWrite, Target } from './types.js'

/**
 * Every registered effect's documents for these results, in registration order, split by
 * record: a single-record result's documents belong to its record (`own`, keyed by hex id);
 * a bulk result's (filter/records) belong to the write as a whole (`group`). So a multi-record
 * write that lands only in part (an insertMany stopped by a duplicate) leaves exactly the
 * documents of the records it wrote.
 */
export async function buildEffects (
  effects: readonly NamedEffect[],
  results: readonly WriteResult[]
): Promise<{ own: Map<string, DurableDoc[]>; group: DurableDoc[]; all: DurableDoc[] }> {
  const own = new Map<string, DurableDoc[]>()
  const group: DurableDoc[] = []
  const all: DurableDoc[] = []
  for (const result of results) {
    const owner = result.records === undefined && result.filter === undefined ? result.recordId : undefined
    const out = owner === undefined ? group : (own.get(owner) ?? own.set(owner, []).get(owner)!)
    for (const e of effects) {
      const docs = await e.build(result)
      if (!Array.isArray(docs)) {
        throw new TypeError(`@svc/core: durable effect '${e.name}' must return an array of { collection, document }`)
      }
      for (const d of docs) {
        if (
          typeof d?.collection !== 'string' ||
          d.collection === '' ||
          d.document == null ||
          d.document._id === undefined
        ) {
          throw new TypeError(`@svc/core: durable effect '${e.name}' returned a document without collection or _id`)
        }
        out.push(d)
        all.push(d)
      }
    }
  }
  return { own, group, all }
}

/** A planned write's effect documents: each target's own, the write's group, and those due once some records changed. */
export interface PlanEffects {
  ownOf: (t: Target) => DurableDoc[]
  group: DurableDoc[]
  due: (changed: readonly string[]) => DurableDoc[]
}

/** Builds the plan's documents; a result about a record the write does not target belongs to the write as a whole. */
export async function planEffects (effects: readonly NamedEffect[], plan: PlannedWrite): Promise<PlanEffects> {
  const built = await buildEffects(effects, plan.results)
  const targetIds = new Set(plan.targets.map((t) => t.recordId.toHexString()))
  for (const [id, docs] of built.own) if (!targetIds.has(id)) built.group.push(...docs)
  const ownOf = (t: Target): DurableDoc[] => built.own.get(t.recordId.toHexString()) ?? []
  return {
    ownOf,
    group: built.group,
    due: (changed) => {
      const hit = new Set(changed)
      return [...plan.targets.filter((t) => hit.has(t.recordId.toHexString())).flatMap(ownOf), ...built.group]
    }
  }
}

export function isDuplicateKey (err: unknown): boolean {
  const e = err as { code?: number; writeErrors?: unknown }
  if (e?.code === 11000) return true
  const list = Array.isArray(e?.writeErrors) ? e.writeErrors : e?.writeErrors === undefined ? [] : [e.writeErrors]
  return list.length > 0 && list.every((w: { code?: number }) => w.code === 11000)
}

function byCollection (docs: readonly DurableDoc[]): Map<string, Document[]> {
  const out = new Map<string, Document[]>()
  for (const d of docs) out.set(d.collection, [...(out.get(d.collection) ?? []), d.document])
  return out
}

/** A document's identity across collections and `_id` types (an ObjectId and its hex string differ). */
const idKey = (collection: string, id: unknown): string => `${collection}\0${BSON.EJSON.stringify({ id })}`

/** The documents among `docs` whose `_id` is already stored (read outside any transaction). */
export async function storedDocs (db: Db, docs: readonly DurableDoc[]): Promise<DurableDoc[]> {
  const found = await Promise.all(
    [...byCollection(docs)].map(async ([name, list]) =>
      (
        await db
          .collection<Document>(name)
          .find({ _id: { $in: list.map((d) => d._id) } }, { projection: { _id: 1 } })
          .toArray()
      ).map((d) => idKey(name, d._id))
    )
  )
  const present = new Set(found.flat())
  return docs.filter((d) => present.has(idKey(d.collection, d.document._id)))
}

/**
 * Inserts effect documents, one unordered insertMany per collection. Outside a transaction a
 * duplicate key is success only when every document's `_id` is now there (a replay); a
 * duplicate on another unique index is a refusal like any other. Inside one (`session`) the
 * inserts run one after the other (a session's operations must not overlap) and any error
 * aborts the transaction: the caller decides.
 */
export async function insertEffects (db: Db, docs: readonly DurableDoc[], session?: ClientSession): Promise<void> {
  const groups = [...byCollection(docs)]
  if (session !== undefined) {
    for (const [name, list] of groups) {
      await db.collection<Document>(name).insertMany(
        list.map((doc) => ({ ...doc })),
        { ordered: false, session }
      )
    }
    return
  }
  await Promise.all(
    groups.map(async ([name, list]) => {
      try {
        await db.collection<Document>(name).insertMany(
          list.map((doc) => ({ ...doc })),
          { ordered: false }
        )
      } catch (err) {
        if (!isDuplicateKey(err)) throw err
        if (
          (
            await storedDocs(
              db,
              docs.filter((d) => d.collection === name)
            )
          ).length < list.length
        ) {
          throw err
        }
      }
    })
  )
}
