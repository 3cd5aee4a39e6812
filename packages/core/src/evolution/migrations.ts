import { createHash } from 'node:crypto'
import { readdir, readFile } from 'node:fs/promises'
import { join, relative } from 'node:path'
import type { Registry } from '../schema/registry.js'
import { importDefault } from '../schema/load.js'
import { hint } from '../schema/schema-error.js'
import { isPlainObject } from '../values/plain-object.js'
import { DEFAULT_VERSION } from '../describe/manifest.js'

/** What a migration does to one resource's records. */
export interface MigrationResource {
  /**
   * A MongoDB filter on the stored records: only those it selects are given to `up`. Evaluated
   * by the database on each record as stored before this run's write.
   */
  filter?: Record<string, unknown>
  /**
   * The record in JSON form (ids and dates as strings, as hooks see it), a copy: return the new
   * record, or edit it in place and return nothing. May be async.
   */
  up: (record: Record<string, unknown>) => unknown
}

/** The default export of `schema/migrations/NNNN-name.ts`. */
export interface MigrationDefinition {
  description?: string
  /** Keyed by schema `path` (the default version) or `<version>/<path>`. */
  resources: Record<string, MigrationResource>
}

/** Identity helper for typed migration files: `export default defineMigration({ ... })`. */
export function defineMigration<const T extends MigrationDefinition> (migration: T): T {
  return migration
}

export interface Migration {
  /** The file name without extension: `0001-backfill-region`. */
  name: string
  number: number
  file: string
  description?: string
  /** Keyed by `<version>/<path>`. */
  resources: Map<string, MigrationResource>
  /** sha256 of the file's text: an applied migration edited afterwards is reported. */
  checksum: string
}

const FILE_RE = /^(\d{4})-([a-z0-9][a-z0-9-]*)\.(ts|mts|js|mjs)$/

/** A migration file that cannot be used: names the file and what is wrong with it. */
export class MigrationFileError extends Error {
  constructor (file: string, problem: string) {
    super(`invalid migration ${file}: ${problem}`)
    this.name = 'MigrationFileError'
  }
}

async function listFiles (dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).sort()
  } catch (err) {
    if ((err as { code?: string }).code === 'ENOENT') return []
    throw err
  }
}

function resourceKey (source: string, name: string, registry: Registry): string {
  const key = name.includes('/') ? name : `${DEFAULT_VERSION}/${name}`
  const [version, path] = key.split('/')
  if (registry.get(version, path) === undefined) {
    throw new MigrationFileError(
      source,
      `resources.${name}: no schema ${key}${hint(
        key,
        registry.all().map((m) => m.key)
      )}`
    )
  }
  return key
}

function parse (source: string, raw: unknown, registry: Registry): Pick<Migration, 'description' | 'resources'> {
  if (!isPlainObject(raw)) {
    throw new MigrationFileError(source, 'the default export must be an object (use defineMigration)')
  }
  const def = raw as Partial<MigrationDefinition>
  if (def.description !== undefined && typeof def.description !== 'string') {
    throw new MigrationFileError(source, 'description must be a string')
  }
  if (!isPlainObject(def.resources) || Object.keys(def.resources).length === 0) {
    throw new MigrationFileError(source, 'resources must map at least one schema path to { up, filter? }')
  }
  const resources = new Map<string, MigrationResource>()
  for (const [name, r] of Object.entries(def.resources)) {
    if (!isPlainObject(r) || typeof r.up !== 'function') {
      throw new MigrationFileError(source, `resources.${name}.up must be a function of the record`)
    }
    if (r.filter !== undefined && !isPlainObject(r.filter)) {
      throw new MigrationFileError(source, `resources.${name}.filter must be a filter object`)
    }
    resources.set(resourceKey(source, name, registry), r as MigrationResource)
  }
  return { ...(def.description !== undefined ? { description: def.description } : {}), resources }
}

/**
 * The migration files of `<schemaDir>/migrations/`, in order. A file there that is not
 * `NNNN-name.{ts,mts,js,mjs}`, a number used twice, or a resource no schema serves stops here
 * (with the file named), before anything runs.
 */
export async function loadMigrations (schemaDir: string, registry: Registry): Promise<Migration[]> {
  const dir = join(schemaDir, 'migrations')
  const out: Migration[] = []
  for (const name of await listFiles(dir)) {
    if (name.startsWith('.') || name.endsWith('.d.ts')) continue
    const file = join(dir, name)
    const source = relative(process.cwd(), file) || file
    const m = FILE_RE.exec(name)
    if (m === null) {
      throw new MigrationFileError(
        source,
        'file names are NNNN-name.ts (four digits, then lower-case letters, digits and dashes)'
      )
    }
    const number = Number(m[1])
    const twin = out.find((x) => x.number === number)
    if (twin !== undefined) throw new MigrationFileError(source, `number ${m[1]} is also used by ${twin.name}`)
    let raw: unknown
    try {
      raw = await importDefault(file)
    } catch (err) {
      throw new MigrationFileError(source, `cannot be imported: ${(err as Error).message}`)
    }
    const checksum = createHash('sha256')
      .update(await readFile(file))
      .digest('hex')
    out.push({
      name: name.replace(/\.(ts|mts|js|mjs)$/, ''),
      number,
      file: source,
      checksum,
      ...parse(source, raw, registry)
    })
  }
  return out
}
