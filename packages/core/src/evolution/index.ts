import type { Db } from 'mongodb'
import type { Registry } from '../schema/registry.js'
import type { ResourceServices } from '../service/index.js'
import { applyMigrations, type ApplyOptions, type ApplyResult } from './apply.js'
import { loadMigrations, type Migration } from './migrations.js'
import { buildPlan, type PlanOptions, type SchemaPlan } from './plan.js'
import { SnapshotStore, type StoredSnapshot } from './snapshot-store.js'

export {
  defineMigration,
  MigrationFileError,
  type Migration,
  type MigrationDefinition,
  type MigrationResource
} from './migrations.js'
export type { ChangeClass, ChangeImpact, ChangeKind, DuplicateImpact, SchemaChange } from './changes.js'
export type { PlanOptions, SchemaPlan } from './plan.js'
export type { ApplyOptions, ApplyProgress, ApplyResourceResult, ApplyResult } from './apply.js'
export type { MigrationFailure } from './impact.js'
export { SchemaCheckError, type SchemaCheckMode } from './startup-check.js'
export { ApplyLockedError, MIGRATIONS_COLLECTION } from './migration-store.js'
export { SNAPSHOTS_COLLECTION, type StoredSnapshot } from './snapshot-store.js'

/**
 * `app.svc.evolution`: the schema files against the stored data (`plan`), the migrations of
 * `<schemaDir>/migrations/` (`apply`), the served snapshot. What `svc schema plan|apply` run.
 */
export class SchemaEvolution {
  readonly #deps: { db: Db; registry: Registry; services: ResourceServices; schemaDir?: string }

  constructor (deps: { db: Db; registry: Registry; services: ResourceServices; schemaDir?: string }) {
    this.#deps = deps
  }

  /** The migration files, in order (none without a schema directory). */
  async migrations (): Promise<Migration[]> {
    return this.#deps.schemaDir === undefined ? [] : await loadMigrations(this.#deps.schemaDir, this.#deps.registry)
  }

  async plan (opts: PlanOptions = {}): Promise<SchemaPlan> {
    return await buildPlan({ ...this.#deps, migrations: await this.migrations() }, opts)
  }

  async apply (opts: ApplyOptions = {}): Promise<ApplyResult> {
    return await applyMigrations({ ...this.#deps, migrations: await this.migrations() }, opts)
  }

  async snapshot (): Promise<StoredSnapshot | null> {
    return await new SnapshotStore(this.#deps.db).read()
  }
}
