import type { Collection, Db } from 'mongodb'
import { generateOpaqueToken, hashToken } from '../tokens.js'

export const RESET_TOKENS_COLLECTION = 'password_resets'
/** Spec: reset tokens live one hour and are single use. */
export const RESET_TOKEN_TTL_SECONDS = 60 * 60

interface ResetTokenDoc {
  _id: string
  userId: string
  createdAt: Date
  expiresAt: Date
  usedAt: Date | null
}

export class ResetTokenStore {
  readonly collection: Collection<ResetTokenDoc>

  constructor (db: Db) {
    this.collection = db.collection<ResetTokenDoc>(RESET_TOKENS_COLLECTION)
  }

  async ensureIndexes (): Promise<void> {
    await this.collection.createIndex({ userId: 1 }, { name: 'user' })
    await this.collection.createIndex({ expiresAt: 1 }, { name: 'purge', expireAfterSeconds: 24 * 60 * 60 })
  }

  async issue (userId: string): Promise<string> {
    const token = generateOpaqueToken()
    const now = new Date()
    await this.collection.insertOne({
      _id: hashToken(token),
      userId,
      createdAt: now,
      expiresAt: new Date(now.getTime() + RESET_TOKEN_TTL_SECONDS * 1000),
      usedAt: null
    })
    return token
  }

  /** Marks the token used in the same atomic step that checks it, so it works exactly once. */
  async consume (token: string): Promise<string | null> {
    const now = new Date()
    const doc = await this.collection.findOneAndUpdate(
      { _id: hashToken(token), usedAt: null, expiresAt: { $gt: now } },
      { $set: { usedAt: now } }
    )
    return doc?.userId ?? null
  }

  /** Voids every other outstanding token of the user (a completed reset ends them all). */
  async voidAllForUser (userId: string): Promise<number> {
    const res = await this.collection.updateMany({ userId, usedAt: null }, { $set: { usedAt: new Date() } })
    return res.modifiedCount
  }
}
