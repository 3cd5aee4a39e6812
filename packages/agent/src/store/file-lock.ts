import { randomBytes } from 'node:crypto'
import { mkdir, open, readFile, rmdir, stat, unlink, utimes } from 'node:fs/promises'
import { hostname } from 'node:os'

/** A lock another host holds counts as abandoned once its heartbeat is this old. */
export const STALE_MS = 30_000
export const HEARTBEAT_MS = 10_000
/** A takeover guard older than this was left by a process that died while taking over. */
const GUARD_STALE_MS = 5000

interface Owner {
  pid: number
  host: string
  id: string
}

/** Paths this process holds (a pid check cannot tell two opens in one process apart). */
const heldHere = new Set<string>()

function pidAlive (pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    // EPERM: the process exists but belongs to another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
}

async function readOwner (path: string): Promise<Owner | null> {
  try {
    const o = JSON.parse(await readFile(path, 'utf8')) as Partial<Owner>
    return typeof o.pid === 'number' && typeof o.host === 'string' && typeof o.id === 'string' ? (o as Owner) : null
  } catch {
    return null
  }
}

export class LockedError extends Error {
  readonly code = 'ELOCKED'
}

/**
 * One process per store file: `<file>.lock` names its owner (pid, host). A lock whose owner is
 * gone is taken over at once, so a crash (SIGKILL, power loss) never blocks a restart: on the
 * same host the pid tells, for another host a heartbeat older than STALE_MS does. Only one
 * process at a time takes over (`<file>.lock.takeover`, an exclusive mkdir), and it removes the
 * lock only if it still names the owner judged gone; the exclusive create stays the one way to
 * hold it, so of several restarts racing exactly one wins.
 */
export class FileLock {
  #timer: NodeJS.Timeout | null = null
  #lost: Error | null = null

  private constructor (
    readonly path: string,
    readonly owner: Owner
  ) {}

  static async acquire (file: string, heartbeatMs = HEARTBEAT_MS): Promise<FileLock> {
    const path = `${file}.lock`
    const owner: Owner = { pid: process.pid, host: hostname(), id: randomBytes(12).toString('hex') }
    for (let attempt = 0; attempt < 20; attempt++) {
      try {
        const handle = await open(path, 'wx', 0o600)
        await handle.writeFile(JSON.stringify(owner))
        await handle.close()
        heldHere.add(path)
        const lock = new FileLock(path, owner)
        lock.#timer = setInterval(() => {
          void lock.#beat()
        }, heartbeatMs).unref()
        return lock
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
      }
      const seen = await readOwner(path)
      const info = await stat(path).catch(() => null)
      if (info == null) continue
      const age = Date.now() - info.mtimeMs
      if (seen == null) {
        // Being written right now, or a crash between create and write: give it a moment.
        if (!(age > 2000)) {
          await new Promise((resolve) => setTimeout(resolve, 50))
          continue
        }
      } else if (await alive(seen, path, age)) {
        throw new LockedError(`held by process ${seen.pid} on ${seen.host}`)
      }
      await takeOver(path, seen, info)
    }
    throw new LockedError('held by another process')
  }

  /** The reason writes must stop (the lock was taken from this process), or null. */
  get lost (): Error | null {
    return this.#lost
  }

  async #beat (): Promise<void> {
    const now = await readOwner(this.path)
    if (now?.id !== this.owner.id) {
      this.#lost = new Error(`the lock ${this.path} was taken over by another process`)
      return
    }
    await utimes(this.path, new Date(), new Date()).catch(() => {})
  }

  async release (): Promise<void> {
    if (this.#timer != null) clearInterval(this.#timer)
    this.#timer = null
    heldHere.delete(this.path)
    if ((await readOwner(this.path))?.id === this.owner.id) await unlink(this.path).catch(() => {})
  }
}

async function alive (owner: Owner, path: string, ageMs: number): Promise<boolean> {
  if (owner.host !== hostname()) return !(ageMs > STALE_MS)
  // Our own pid in the file and not held here: a previous run under a recycled pid (a container's pid 1).
  if (owner.pid === process.pid) return heldHere.has(path)
  return pidAlive(owner.pid)
}

/**
 * Removes the lock judged abandoned (`stale`: its owner then, null when it was unreadable; `was`:
 * the file's inode and mtime then) under the takeover guard, and only if it is still that one:
 * same owner, same file (an unreadable lock may since have been replaced by a racer's own, not
 * yet written; a heartbeat moves the mtime of a lock that is alive after all). Moving the lock
 * aside instead, as before, left a moment with no lock file: a third process created its own
 * there while the second put back what it had moved, and two held the store (four racing restarts
 * on a loaded CI runner).
 */
async function takeOver (path: string, stale: Owner | null, was: { ino: number; mtimeMs: number }): Promise<void> {
  const guard = `${path}.takeover`
  try {
    await mkdir(guard)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
    const info = await stat(guard).catch(() => null)
    if (info != null && Date.now() - info.mtimeMs > GUARD_STALE_MS) await rmdir(guard).catch(() => {})
    else await new Promise((resolve) => setTimeout(resolve, 20))
    return
  }
  try {
    const now = await readOwner(path)
    const info = await stat(path).catch(() => null)
    if (now?.id === stale?.id && info?.ino === was.ino && info.mtimeMs === was.mtimeMs) {
      await unlink(path).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'ENOENT') throw err
      })
    }
  } finally {
    await rmdir(guard).catch(() => {})
  }
}
