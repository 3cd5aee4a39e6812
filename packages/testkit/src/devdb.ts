import { readdirSync, statSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

export interface DevDbHandle {
  uri: string
  stop(): Promise<void>
}

/** Newest modification time under `dir` (0 when it does not exist). */
function newestMtime (dir: string): number {
  let newest = 0
  let entries
  try {
    entries = readdirSync(dir, { withFileTypes: true })
  } catch {
    return 0
  }
  for (const e of entries) {
    const path = join(dir, e.name)
    newest = Math.max(newest, e.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs)
  }
  return newest
}

/**
 * True when @svc/devdb's `dist/` was built after its last source change. Packages that only use
 * devdb as their database then load the compiled build (about a CPU-second less per test file
 * than compiling its sources); after an edit without a rebuild they get the sources.
 */
export function devdbBuildIsFresh (): boolean {
  // Resolves to src/index.ts under the @svc/source condition, dist/index.js without it.
  return buildIsFresh(dirname(dirname(fileURLToPath(import.meta.resolve('@svc/devdb')))))
}

/** True when the package at `root` has a `dist/` at least as new as everything in its `src/`. */
export function buildIsFresh (root: string): boolean {
  const built = newestMtime(join(root, 'dist'))
  return built > 0 && built >= newestMtime(join(root, 'src'))
}

export interface EmbeddedDevDbOptions {
  replSet?: false
  enableTestCommands?: true
}

/**
 * An in-memory devdb on a random port: a single-node replica set, or a standalone with
 * `replSet: false`; `enableTestCommands` offers `configureFailPoint`, as mongod's test commands.
 */
export async function startEmbeddedDevDb (opts: EmbeddedDevDbOptions = {}): Promise<DevDbHandle> {
  const mod = devdbBuildIsFresh() ? await import('@svc/devdb/built') : await import('@svc/devdb')
  return await mod.startDevDb({ port: 0, ...opts })
}
