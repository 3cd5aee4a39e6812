import { randomBytes, randomUUID } from 'node:crypto'
import type { Collection, Db } from 'mongodb'

export const SUBSCRIPTIONS_COLLECTION = 'webhook_subscriptions'

/** A stored subscription. Runtime ones belong to a tenant; schema-declared ones to the operator. */
export interface SubscriptionDoc {
  _id: string
  /** The owning tenant; null for a schema-declared endpoint (it sees every tenant's events). */
  userId: string | null
  events: string[]
  url: string
  active: boolean
  failureCount: number
  lastDeliveryAt: Date | null
  secret: string
  /** The creator's roles: records are projected through the field ACL as they would see them. */
  roles: string[]
  createdAt: Date
  updatedAt: Date
  /** Schema-declared endpoints: `<version>/<path>` they belong to. */
  declaredBy?: string
}

/** Whose share of the delivery workers a subscription's deliveries take: its tenant, or the operator per declaring schema. */
export function tenantOf (sub: SubscriptionDoc): string {
  return sub.userId ?? `declared:${sub.declaredBy ?? ''}`
}

/** The spec's subscription record as the API answers it (secret only on create). */
export interface Subscription {
  _id: string
  userId: string | null
  events: string[]
  url: string
  active: boolean
  failureCount: number
  lastDeliveryAt: string | null
  createdAt: string
  updatedAt: string
  secret?: string
}

export function present (doc: SubscriptionDoc, withSecret = false): Subscription {
  return {
    _id: doc._id,
    userId: doc.userId,
    events: doc.events,
    url: doc.url,
    active: doc.active,
    failureCount: doc.failureCount,
    lastDeliveryAt: doc.lastDeliveryAt?.toISOString() ?? null,
    createdAt: doc.createdAt.toISOString(),
    updatedAt: doc.updatedAt.toISOString(),
    ...(withSecret ? { secret: doc.secret } : {})
  }
}

/** Every tenant-facing read and write carries `userId` in its filter, so no id crosses tenants. */
export class SubscriptionStore {
  readonly col: Collection<SubscriptionDoc>

  constructor (db: Db) {
    this.col = db.collection<SubscriptionDoc>(SUBSCRIPTIONS_COLLECTION)
  }

  async ensureIndexes (): Promise<void> {
    await this.col.createIndex({ userId: 1, createdAt: -1 })
    await this.col.createIndex({ declaredBy: 1 }, { sparse: true })
  }

  async create (userId: string, roles: string[], events: string[], url: string): Promise<SubscriptionDoc> {
    const now = new Date()
    const doc: SubscriptionDoc = {
      _id: randomUUID(),
      userId,
      events,
      url,
      active: true,
      failureCount: 0,
      lastDeliveryAt: null,
      secret: randomBytes(32).toString('hex'),
      roles,
      createdAt: now,
      updatedAt: now
    }
    await this.col.insertOne(doc)
    return doc
  }

  async list (userId: string, skip: number, limit: number): Promise<{ docs: SubscriptionDoc[]; total: number }> {
    const [docs, total] = await Promise.all([
      this.col.find({ userId }).sort({ createdAt: -1, _id: 1 }).skip(skip).limit(limit).toArray(),
      this.col.countDocuments({ userId })
    ])
    return { docs, total }
  }

  async get (userId: string, id: string): Promise<SubscriptionDoc | null> {
    return await this.col.findOne({ _id: id, userId })
  }

  /** `active: true` re-enables and resets `failureCount` (CONTRACT). */
  async update (
    userId: string,
    id: string,
    patch: { events?: string[]; url?: string; active?: boolean }
  ): Promise<SubscriptionDoc | null> {
    const set: Partial<SubscriptionDoc> = { ...patch, updatedAt: new Date() }
    if (patch.active === true) set.failureCount = 0
    return await this.col.findOneAndUpdate({ _id: id, userId }, { $set: set }, { returnDocument: 'after' })
  }

  async remove (userId: string, id: string): Promise<boolean> {
    return (await this.col.deleteOne({ _id: id, userId })).deletedCount === 1
  }

  /** Active subscriptions that may see events of these tenants or of these schemas (declared endpoints). */
  async candidates (userIds: string[], declaredBy: string[]): Promise<SubscriptionDoc[]> {
    return await this.col
      .find({ active: true, $or: [{ userId: { $in: userIds } }, { declaredBy: { $in: declaredBy } }] })
      .toArray()
  }

  async byIds (ids: string[]): Promise<Map<string, SubscriptionDoc>> {
    if (ids.length === 0) return new Map()
    return new Map((await this.col.find({ _id: { $in: ids } }).toArray()).map((s) => [s._id, s]))
  }

  /** Turns off the given subscriptions that reached `threshold` consecutive failures; answers how many. */
  async disableFailing (ids: string[], threshold: number): Promise<number> {
    const res = await this.col.updateMany(
      { _id: { $in: ids }, active: true, failureCount: { $gte: threshold } },
      { $set: { active: false, updatedAt: new Date() } }
    )
    return res.modifiedCount
  }

  /** Schema-declared endpoints are kept as subscriptions (delivery state, attempt rows); ids are stable across boots. */
  async upsertDeclared (
    declaredBy: string,
    index: number,
    events: string[],
    url: string,
    secret: string
  ): Promise<void> {
    const now = new Date()
    await this.col.updateOne(
      { _id: `declared:${declaredBy}:${index}` },
      {
        $set: { events, url, secret, declaredBy, updatedAt: now },
        $setOnInsert: { userId: null, active: true, failureCount: 0, lastDeliveryAt: null, roles: [], createdAt: now }
      },
      { upsert: true }
    )
  }
}
