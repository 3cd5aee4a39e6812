import { createHash, randomBytes } from 'node:crypto'
import type { Collection, Db } from 'mongodb'
import { UnauthenticatedError, type Identity } from '@svc/core'

export const TICKETS_COLLECTION = 'svc_realtime_tickets'

interface TicketDoc {
  /** SHA-256 of the ticket: the database never holds a usable one. */
  _id: string
  identity: Identity
  expiresAt: Date
}

const hash = (ticket: string): string => createHash('sha256').update(ticket).digest('hex')
const SHAPE = /^[A-Za-z0-9_-]{43}$/

/**
 * Browser tickets for `EventSource` (which cannot send a bearer): single use, short-lived,
 * bound to the identity that asked. Kept in the database, so a ticket minted on one replica
 * opens a stream on another, and taken with one `findOneAndDelete`, so two uses race to one winner.
 */
export class TicketStore {
  readonly #coll: Collection<TicketDoc>
  readonly #ttlMs: number

  constructor (db: Db, ttlSeconds: number) {
    this.#coll = db.collection<TicketDoc>(TICKETS_COLLECTION)
    this.#ttlMs = Math.round(ttlSeconds * 1000)
  }

  async ensureIndexes (): Promise<void> {
    // The database removes expired tickets itself; `take` also checks the time.
    await this.#coll.createIndex({ expiresAt: 1 }, { name: 'svc_realtime_tickets_ttl', expireAfterSeconds: 0 })
  }

  async mint (identity: Identity): Promise<{ ticket: string; expiresAt: Date }> {
    const ticket = randomBytes(32).toString('base64url')
    const expiresAt = new Date(Date.now() + this.#ttlMs)
    const { userId, email, roles, accountId, kind } = identity
    const kept: Identity = {
      kind,
      userId,
      roles,
      ...(email !== undefined ? { email } : {}),
      ...(accountId !== undefined ? { accountId } : {})
    }
    await this.#coll.insertOne({ _id: hash(ticket), identity: kept, expiresAt })
    return { ticket, expiresAt }
  }

  /** The identity a ticket was minted for, using it up; 401 for an unknown, used or expired one. */
  async take (ticket: unknown): Promise<Identity> {
    if (typeof ticket !== 'string' || !SHAPE.test(ticket)) throw new UnauthenticatedError('invalid ticket')
    const doc = await this.#coll.findOneAndDelete({ _id: hash(ticket) })
    if (doc === null) throw new UnauthenticatedError('unknown or already used ticket')
    if (doc.expiresAt.getTime() <= Date.now()) throw new UnauthenticatedError('expired ticket')
    return doc.identity
  }
}
