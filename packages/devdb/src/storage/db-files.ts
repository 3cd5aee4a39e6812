/**
 * File layout of a dbPath:
 *   snapshot-<gen>.bson   full state; everything before journal-<gen> (written via a .tmp + rename)
 *   journal-<gen>.log     records appended after snapshot-<gen> was started
 *   devdb.lock            pid of the process that has the directory open
 * The generation number in the names is what tells recovery which journals follow which
 * snapshot: load the newest snapshot G, then replay journals G, G+1, … in order.
 */
import { promises as fsp } from 'node:fs'
import * as path from 'node:path'

const SNAPSHOT_RE = /^snapshot-(\d{8})\.bson$/
const JOURNAL_RE = /^journal-(\d{8})\.log$/

function pad (gen: number): string {
  return String(gen).padStart(8, '0')
}

export function snapshotPath (dir: string, gen: number): string {
  return path.join(dir, `snapshot-${pad(gen)}.bson`)
}

export function journalPath (dir: string, gen: number): string {
  return path.join(dir, `journal-${pad(gen)}.log`)
}

export function lockPath (dir: string): string {
  return path.join(dir, 'devdb.lock')
}

export interface DbFiles {
  snapshots: number[] // ascending generations
  journals: number[] // ascending generations
  temps: string[] // leftovers of interrupted snapshot writes
}

export async function listDbFiles (dir: string): Promise<DbFiles> {
  const names = await fsp.readdir(dir)
  const snapshots: number[] = []
  const journals: number[] = []
  const temps: string[] = []
  for (const n of names) {
    const s = SNAPSHOT_RE.exec(n)
    const j = JOURNAL_RE.exec(n)
    if (s !== null) snapshots.push(Number(s[1]))
    else if (j !== null) journals.push(Number(j[1]))
    else if (n.endsWith('.tmp')) temps.push(path.join(dir, n))
  }
  snapshots.sort((a, b) => a - b)
  journals.sort((a, b) => a - b)
  return { snapshots, journals, temps }
}

/**
 * fsync of the directory makes created, renamed and deleted names durable; without it a
 * power loss can undo a rename even though the file's data was synced.
 */
export async function fsyncDir (dir: string): Promise<void> {
  const fh = await fsp.open(dir, 'r')
  try {
    await fh.sync()
  } catch (err) {
    // Some filesystems refuse fsync on a directory; the data files themselves are still synced.
    if ((err as NodeJS.ErrnoException).code !== 'EINVAL' && (err as NodeJS.ErrnoException).code !== 'EISDIR') throw err
  } finally {
    await fh.close()
  }
}

export async function removeIfExists (file: string): Promise<void> {
  await fsp.rm(file, { force: true })
}
