import { MongoServerError, ObjectId, type Collection, type Db } from 'mongodb'
import { ConflictError } from '../../errors.js'
import type { UserDoc } from '../public-user.js'

export const USERS_COLLECTION = 'users'

/** E-mails are compared and stored trimmed and lower-cased; the unique index relies on it. */
export function normalizeEmail (email: string): string {
  return email.trim().toLowerCase()
}

export interface NewUser {
  first_name: string
  last_name: string
  email: string
  passwordHash: string
  roles?: string[]
}

export class UserStore {
  readonly collection: Collection<UserDoc>

  constructor (db: Db) {
    this.collection = db.collection<UserDoc>(USERS_COLLECTION)
  }

  async ensureIndexes (): Promise<void> {
    await this.collection.createIndex({ email: 1 }, { unique: true, name: 'email_unique' })
  }

  async create (input: NewUser): Promise<UserDoc> {
    const now = new Date()
    const doc: UserDoc = {
      _id: new ObjectId(),
      first_name: input.first_name,
      last_name: input.last_name,
      email: normalizeEmail(input.email),
      passwordHash: input.passwordHash,
      roles: input.roles ?? ['user'],
      createdAt: now,
      updatedAt: now
    }
    try {
      await this.collection.insertOne(doc)
    } catch (err) {
      // No `cause`: the driver error carries the e-mail in keyValue, and error causes get logged.
      if (err instanceof MongoServerError && err.code === 11000) {
        throw new ConflictError('a user with this e-mail already exists', { keys: ['email'] })
      }
      throw err
    }
    return doc
  }

  async findByEmail (email: string): Promise<UserDoc | null> {
    return await this.collection.findOne({ email: normalizeEmail(email) })
  }

  async findById (id: string): Promise<UserDoc | null> {
    if (!ObjectId.isValid(id) || id.length !== 24) return null
    return await this.collection.findOne({ _id: new ObjectId(id) })
  }

  /** Also records `passwordChangedAt`: access tokens issued before it stop working. */
  async setPasswordHash (id: ObjectId, passwordHash: string): Promise<void> {
    const now = new Date()
    await this.collection.updateOne({ _id: id }, { $set: { passwordHash, passwordChangedAt: now, updatedAt: now } })
  }

  /** Null when the user is unknown or never changed their password. */
  async passwordChangedAt (id: string): Promise<Date | null> {
    if (!ObjectId.isValid(id) || id.length !== 24) return null
    const doc = await this.collection.findOne({ _id: new ObjectId(id) }, { projection: { passwordChangedAt: 1 } })
    return doc?.passwordChangedAt ?? null
  }

  /** Returns false when no user has this e-mail. */
  async setRoles (email: string, roles: string[]): Promise<boolean> {
    const res = await this.collection.updateOne(
      { email: normalizeEmail(email) },
      { $set: { roles, updatedAt: new Date() } }
    )
    return res.matchedCount === 1
  }
}
