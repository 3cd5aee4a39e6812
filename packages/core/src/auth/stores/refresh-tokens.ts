import { randomUUID } from 'node:crypto'
import type { Collection, Db } from 'mongodb'
import { generateOpaqueToken, hashToken } from '../tokens.js'

export const REFRESH_TOKENS_COLLECTION = 'refresh_tokens'
/** Default lifetime of one refresh token; every rotation issues a fresh one (sliding window). */
export const DEFAULT_REFRESH_TOKEN_TTL_SECONDS = 30 * 24 * 60 * 60

interface RefreshTokenDoc {
  /** SHA-256 of the opaque token; the token itself is never stored. */
  _id: string
  familyId: string
  userId: string
  createdAt: Date
  expiresAt: Date
  /** Set when the token is claimed for an exchange. */
  usedAt: Date | null
  /** Set once the exchange completed (successor stored); later presentations are reuse. */
  replacedAt?: Date
  revokedAt: Date | null
}

export type RotateResult =
  | { ok: true; userId: string; familyId: string; refreshToken: string }
  | { ok: false; reason: 'unknown' | 'expired' | 'revoked' | 'reused' | 'concurrent' }

/** A claimed token whose exchange never completed (crashed mid-way) counts as replaced after this. */
const STALLED_EXCHANGE_MS = 30_000

export class RefreshTokenStore {
  readonly collection: Collection<RefreshTokenDoc>

  constructor (
    db: Db,
    private readonly ttlSeconds: number = DEFAULT_REFRESH_TOKEN_TTL_SECONDS
  ) {
    this.collection = db.collection<RefreshTokenDoc>(REFRESH_TOKENS_COLLECTION)
  }

  async ensureIndexes (): Promise<void> {
    await this.collection.createIndex({ familyId: 1 }, { name: 'family' })
    await this.collection.createIndex({ userId: 1 }, { name: 'user' })
    // Expired tokens are purged a week after expiry; until then a late replay is still
    // recognised as reuse and revokes its family.
    await this.collection.createIndex({ expiresAt: 1 }, { name: 'purge', expireAfterSeconds: 7 * 24 * 60 * 60 })
  }

  /** Issues a token in a new family (login, register) or in `familyId` (rotation). */
  async issue (userId: string, familyId: string = randomUUID()): Promise<string> {
    const token = generateOpaqueToken()
    const now = new Date()
    await this.collection.insertOne({
      _id: hashToken(token),
      familyId,
      userId,
      createdAt: now,
      expiresAt: new Date(now.getTime() + this.ttlSeconds * 1000),
      usedAt: null,
      revokedAt: null
    })
    return token
  }

  /**
   * Exchanges a token for a new one in the same family. The claim is one conditional
   * findOneAndUpdate, so of two concurrent exchanges exactly one wins. A loser whose request
   * started before the winner's exchange completed is a concurrent duplicate (a double submit):
   * 401 without revoking. A presentation that starts after the exchange completed is reuse, and
   * revokes the whole family. A family counts as revoked when any member carries `revokedAt`,
   * which also covers a successor inserted while a revocation ran.
   */
  async rotate (token: string, requestStartedAt: Date = new Date()): Promise<RotateResult> {
    const id = hashToken(token)
    const now = new Date()
    const claimed = await this.collection.findOneAndUpdate(
      { _id: id, usedAt: null, revokedAt: null, expiresAt: { $gt: now } },
      { $set: { usedAt: now } }
    )
    if (claimed == null) {
      const existing = await this.collection.findOne({ _id: id })
      if (existing == null) return { ok: false, reason: 'unknown' }
      if (existing.revokedAt != null) return { ok: false, reason: 'revoked' }
      if (existing.usedAt != null) {
        const replacedAt =
          existing.replacedAt ??
          (now.getTime() - existing.usedAt.getTime() > STALLED_EXCHANGE_MS ? existing.usedAt : null)
        if (replacedAt == null || requestStartedAt < replacedAt) return { ok: false, reason: 'concurrent' }
        await this.revokeFamily(existing.familyId)
        return { ok: false, reason: 'reused' }
      }
      return { ok: false, reason: 'expired' }
    }
    if (await this.isFamilyRevoked(claimed.familyId)) {
      await this.revokeFamily(claimed.familyId)
      return { ok: false, reason: 'revoked' }
    }
    const refreshToken = await this.issue(claimed.userId, claimed.familyId)
    await this.collection.updateOne({ _id: id }, { $set: { replacedAt: new Date() } })
    return { ok: true, userId: claimed.userId, familyId: claimed.familyId, refreshToken }
  }

  async revokeFamily (familyId: string): Promise<void> {
    await this.collection.updateMany({ familyId, revokedAt: null }, { $set: { revokedAt: new Date() } })
  }

  /** Ends every session of a user (password reset). */
  async revokeAllForUser (userId: string): Promise<void> {
    await this.collection.updateMany({ userId, revokedAt: null }, { $set: { revokedAt: new Date() } })
  }

  private async isFamilyRevoked (familyId: string): Promise<boolean> {
    const hit = await this.collection.findOne({ familyId, revokedAt: { $ne: null } }, { projection: { _id: 1 } })
    return hit != null
  }
}
