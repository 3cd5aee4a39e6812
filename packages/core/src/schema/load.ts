import { readdir, stat } from 'node:fs/promises'
import { join, relative } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { FastifyBaseLogger } from 'fastify'
import { normalizeSchema } from './normalize.js'
import { Registry } from './registry.js'
import { SchemaError } from './schema-error.js'

const EXT_RE = /\.(ts|mts|js|mjs)$/

export interface LoadOptions {
  schemaDir?: string
  schemas?: unknown[]
  /** Version for `opts.schemas` entries without a `version` key. */
  defaultVersion?: string
  log?: FastifyBaseLogger
}

async function isDir (p: string): Promise<boolean> {
  try {
    return (await stat(p)).isDirectory()
  } catch {
    return false
  }
}

/** Schema files in `<schemaDir>/versions/<v>/`, sorted so load order (and errors) are deterministic. */
async function listFiles (schemaDir: string): Promise<Array<{ file: string; version: string }>> {
  const root = join(schemaDir, 'versions')
  if (!(await isDir(root))) {
    throw new SchemaError(
      schemaDir,
      'versions',
      `schema directory needs a versions/<version>/ folder (looked in ${root})`
    )
  }
  const out: Array<{ file: string; version: string }> = []
  for (const version of (await readdir(root)).sort()) {
    const dir = join(root, version)
    if (!(await isDir(dir))) continue
    for (const name of (await readdir(dir)).sort()) {
      if (EXT_RE.test(name) && !name.endsWith('.d.ts') && !name.startsWith('.')) {
        out.push({ file: join(dir, name), version })
      }
    }
  }
  return out
}

let tsxRegistered = false
let loads = 0

/**
 * TypeScript schema files go through tsx's loader, registered once for the process on the first
 * one (Node 20 strips no types; the reference server's launcher registers it anyway when run from
 * source). Not `tsImport`: its namespace gives
 * every import of the schema file — `@svc/core` included — a module instance of its own, so the
 * `ValidationError` a hook throws would not be core's class, and each schema file would load core
 * and its dependencies again. Each load imports the file afresh (a query on its URL), as tsImport
 * did, so a schema edited on disk is read again; what it imports is shared as usual.
 */
async function importSchema (file: string, load: number): Promise<unknown> {
  if (/\.m?ts$/.test(file) && !tsxRegistered) {
    // Imported here: a server whose schemas are JavaScript never loads tsx.
    const { register } = await import('tsx/esm/api')
    register()
    tsxRegistered = true
  }
  const mod = await import(`${pathToFileURL(file).href}?svc-schema-load=${load}`)
  const exported = (mod as { default?: unknown }).default
  // tsx may wrap a CJS-transpiled module: `default.default` is the real export then.
  if (exported != null && typeof exported === 'object' && 'default' in exported && !('path' in exported)) {
    return (exported as { default: unknown }).default
  }
  return exported
}

/** An ES module's default export, read afresh from disk (migration files load the way schema files do). */
export async function importDefault (file: string): Promise<unknown> {
  return await importSchema(file, ++loads)
}

/** Loads, validates and normalizes every schema; throws one SchemaError naming the file and key. */
export async function loadRegistry (opts: LoadOptions): Promise<Registry> {
  const registry = new Registry()
  const unknown: string[] = []
  const add = (source: string, raw: unknown, version: string): void => {
    const { model, unknownKeys } = normalizeSchema(source, raw, version)
    registry.add(model)
    for (const k of unknownKeys) unknown.push(`${source}: ${k}`)
  }
  if (opts.schemaDir !== undefined) {
    const load = ++loads
    for (const { file, version } of await listFiles(opts.schemaDir)) {
      const source = relative(process.cwd(), file) || file
      let raw: unknown
      try {
        raw = await importSchema(file, load)
      } catch (err) {
        throw new SchemaError(source, 'import', (err as Error).message)
      }
      add(source, raw, version)
    }
  }
  ;(opts.schemas ?? []).forEach((raw, i) => add(`schemas[${i}]`, raw, opts.defaultVersion ?? 'v1'))
  registry.check()
  if (unknown.length > 0) opts.log?.debug({ keys: unknown }, 'ignored unknown top-level schema keys')
  return registry
}
