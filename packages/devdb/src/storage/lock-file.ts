/**
 * One process per dbPath. Two writers appending to the same journal would interleave records
 * and corrupt it, so the second opener is refused, as mongod refuses with DBPathInUse.
 * The lock holds the owner's pid; a lock left by a process that no longer exists (SIGKILL,
 * power loss) is stale and taken over.
 */
import { promises as fsp } from 'node:fs'
import * as path from 'node:path'
import { CommandError } from '../errors.js'
import { lockPath } from './db-files.js'

const DB_PATH_IN_USE = 98

/** Directories open in this process (a pid check cannot tell two opens in one process apart). */
const openHere = new Set<string>()

function pidAlive (pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
}

function inUse (dir: string, pid: number | string): CommandError {
  return new CommandError(
    DB_PATH_IN_USE,
    'DBPathInUse',
    `Unable to lock the dbPath ${dir}: it is in use by another devdb process (pid ${pid}); lock file ${lockPath(dir)}`
  )
}

export interface DbLock {
  release: () => Promise<void>
}

export async function acquireLock (dir: string): Promise<DbLock> {
  const key = path.resolve(dir)
  if (openHere.has(key)) throw inUse(dir, process.pid)
  const file = lockPath(dir)
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      await fsp.writeFile(file, `${process.pid}\n`, { flag: 'wx' })
      openHere.add(key)
      return {
        release: async () => {
          openHere.delete(key)
          await fsp.rm(file, { force: true })
        }
      }
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
    }
    const text = await fsp.readFile(file, 'utf8').catch(() => '')
    const pid = Number.parseInt(text.trim(), 10)
    // An empty lock file is a crash between create and write: stale as well.
    if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && pidAlive(pid)) throw inUse(dir, pid)
    // Stale (dead owner, or our own pid recycled from an earlier run): remove and retry; if another
    // process races us here only one 'wx' create wins and the loser sees a live pid next round.
    await fsp.rm(file, { force: true })
  }
  throw inUse(dir, 'unknown')
}
