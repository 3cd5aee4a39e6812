import type { ObjectId } from 'mongodb'

/** Stored shape of a `users` document. */
export interface UserDoc {
  _id: ObjectId
  first_name: string
  last_name: string
  email: string
  passwordHash: string
  roles: string[]
  /** Set by a completed password reset; access tokens issued before it are refused. */
  passwordChangedAt?: Date
  createdAt: Date
  updatedAt: Date
}

export interface PublicUser {
  _id: string
  first_name: string
  last_name: string
  email: string
  roles: string[]
  createdAt: string
  updatedAt: string
}

/** The only way a user leaves the service: an allow-list, so the hash (or any later secret field) never does. */
export function toPublicUser (doc: UserDoc): PublicUser {
  return {
    _id: doc._id.toHexString(),
    first_name: doc.first_name,
    last_name: doc.last_name,
    email: doc.email,
    roles: [...doc.roles],
    createdAt: doc.createdAt.toISOString(),
    updatedAt: doc.updatedAt.toISOString()
  }
}
