import { randomBytes } from 'node:crypto'
import { hostname } from 'node:os'
import type { Collection, Db } from 'mongodb'
import { MIGRATION_MARKS_COLLECTION } from '../service/migrate-batch.js'

export const MIGRATIONS_COLLECTION = 'svc_migrations'
export const PROGRESS_COLLECTION = 'svc_migration_progress'
const LOCK_ID = '#apply-lock'

/** An applied migration, as `svc_migrations` keeps it. */
export interface AppliedMigration {
  _id: string
  status: 'done'
  appliedAt: Date
  checksum: string
  resources: string[]
  migrated: number
  unchanged: number
}

interface LockDoc {
  _id: typeof LOCK_ID
  token: string
  host: string
  pid: number
  since: Date
  leaseUntil: Date
}
interface ProgressDoc {
  _id: string
  run: string
  resource: string
  tenant: string | null
  lastId: string | null
  done: boolean
  at: Date
}

/** Another `svc schema apply` holds the lock and is alive. */
export class ApplyLockedError extends Error {
  constructor (holder: { host: string; pid: number; since: Date; leaseUntil: Date }) {
    super(
      `another svc schema apply is running (pid ${holder.pid} on ${holder.host}, since ${holder.since.toISOString()}); ` +
        `its lock expires at ${holder.leaseUntil.toISOString()} unless renewed`
    )
    this.name = 'ApplyLockedError'
  }
}

function isAlive (pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return (err as { code?: string }).code === 'EPERM'
  }
}

/** Which migrations ran, the apply lock, and per-tenant checkpoints of the run in progress. */
export class MigrationStore {
  readonly #done: Collection<AppliedMigration>
  readonly #lock: Collection<LockDoc>
  readonly #progress: Collection<ProgressDoc>
  readonly #marks: Collection<{ _id: string }>

  constructor (db: Db) {
    this.#done = db.collection<AppliedMigration>(MIGRATIONS_COLLECTION)
    this.#lock = db.collection<LockDoc>(MIGRATIONS_COLLECTION)
    this.#progress = db.collection<ProgressDoc>(PROGRESS_COLLECTION)
    this.#marks = db.collection<{ _id: string }>(MIGRATION_MARKS_COLLECTION)
  }

  async applied (): Promise<Map<string, AppliedMigration>> {
    const docs = await this.#done.find({ status: 'done' }).toArray()
    return new Map(docs.map((d) => [d._id, d]))
  }

  async markDone (m: Omit<AppliedMigration, 'status' | 'appliedAt'>): Promise<void> {
    await this.#done.replaceOne({ _id: m._id }, { ...m, status: 'done', appliedAt: new Date() }, { upsert: true })
  }

  /**
   * Takes the apply lock for `leaseMs` (renew it with `renew`): free, expired, or held by a
   * process of this host that no longer exists (a killed run) — else ApplyLockedError.
   */
  async lock (leaseMs: number): Promise<string> {
    const token = randomBytes(12).toString('hex')
    const now = new Date()
    const mine: Omit<LockDoc, '_id'> = {
      token,
      host: hostname(),
      pid: process.pid,
      since: now,
      leaseUntil: new Date(now.getTime() + leaseMs)
    }
    const held = await this.#lock.findOne({ _id: LOCK_ID })
    if (held === null) {
      try {
        await this.#lock.insertOne({ _id: LOCK_ID, ...mine })
        return token
      } catch (err) {
        if ((err as { code?: number }).code !== 11000) throw err
        return await this.lock(leaseMs)
      }
    }
    const free = held.leaseUntil.getTime() < now.getTime() || (held.host === hostname() && !isAlive(held.pid))
    if (!free) throw new ApplyLockedError(held)
    const taken = await this.#lock.updateOne({ _id: LOCK_ID, token: held.token }, { $set: mine })
    if (taken.modifiedCount === 0) return await this.lock(leaseMs)
    return token
  }

  /** Extends the lease; false when another run took the lock over (this one must stop). */
  async renew (token: string, leaseMs: number): Promise<boolean> {
    const res = await this.#lock.updateOne(
      { _id: LOCK_ID, token },
      { $set: { leaseUntil: new Date(Date.now() + leaseMs) } }
    )
    return res.matchedCount === 1
  }

  async unlock (token: string): Promise<void> {
    await this.#lock.deleteOne({ _id: LOCK_ID, token })
  }

  async checkpoint (
    run: string,
    resource: string,
    tenant: string | null
  ): Promise<{ lastId: string | null; done: boolean }> {
    const doc = await this.#progress.findOne({ _id: progressId(run, resource, tenant) })
    return { lastId: doc?.lastId ?? null, done: doc?.done ?? false }
  }

  async saveCheckpoint (
    run: string,
    resource: string,
    tenant: string | null,
    lastId: string | null,
    done: boolean
  ): Promise<void> {
    await this.#progress.replaceOne(
      { _id: progressId(run, resource, tenant) },
      { run, resource, tenant, lastId, done, at: new Date() },
      { upsert: true }
    )
  }

  /** Once a run is complete: its checkpoints and the markers of its migrations go (nothing reads them again). */
  async cleanUp (run: string, migrations: string[]): Promise<void> {
    await this.#progress.deleteMany({ run })
    for (const name of migrations) await this.#marks.deleteMany({ _id: { $gte: `${name}|`, $lt: `${name}}` } })
  }
}

function progressId (run: string, resource: string, tenant: string | null): string {
  return `${run}|${resource}|${tenant === null ? '\u0000' : tenant}`
}
