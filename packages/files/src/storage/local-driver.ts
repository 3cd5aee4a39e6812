import { randomUUID } from 'node:crypto'
import { once } from 'node:events'
import { createWriteStream } from 'node:fs'
import { mkdir, opendir, rename, stat, unlink } from 'node:fs/promises'
import { dirname, join, relative, resolve, sep } from 'node:path'
import type { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import type { BlobInfo, StorageDriver } from './driver.js'
import { KEY_RE } from './keys.js'

// Interrupted writes live here until renamed into place; the reconciler clears stale ones.
const TEMP_DIR = '.incoming'

function ignoreMissing (err: unknown): void {
  if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
}

/**
 * Blobs as files under one root directory. A blob is written to a temp file (flushed to disk)
 * and renamed into place, so a reader never sees half a file and a crash leaves only a temp file.
 */
export class LocalDriver implements StorageDriver {
  readonly name = 'local'
  readonly root: string

  constructor (root: string) {
    this.root = resolve(root)
  }

  /** Creates the root (and its temp directory); run at start so a bad UPLOADS_DIR fails boot. */
  async init (): Promise<void> {
    await mkdir(join(this.root, TEMP_DIR), { recursive: true })
  }

  /** The absolute path of a key; refuses anything that is not a well-formed key inside the root. */
  pathOf (key: string): string {
    const p = resolve(this.root, key)
    if (!KEY_RE.test(key) || !p.startsWith(this.root + sep)) throw new Error(`@svc/files: unsafe key '${key}'`)
    return p
  }

  async put (key: string, body: Readable, _contentType: string): Promise<void> {
    const target = this.pathOf(key)
    const temp = join(this.root, TEMP_DIR, randomUUID())
    const out = createWriteStream(temp, { flags: 'wx', flush: true })
    try {
      await pipeline(body, out)
      await mkdir(dirname(target), { recursive: true })
      await rename(temp, target)
    } catch (err) {
      // A failure can come before the file is even open: unlink only once it is closed, or the
      // late open would recreate it.
      if (!out.closed) await once(out, 'close').catch(() => {})
      await unlink(temp).catch(ignoreMissing)
      throw err
    }
  }

  async remove (key: string): Promise<void> {
    await unlink(this.pathOf(key)).catch(ignoreMissing)
  }

  async * list (before: Date): AsyncIterable<BlobInfo> {
    for await (const file of this.#walk(this.root)) {
      const key = relative(this.root, file).split(sep).join('/')
      if (key.startsWith(`${TEMP_DIR}/`)) continue
      const info = await stat(file).catch(() => null)
      if (info != null && info.mtime < before) yield { key, modifiedAt: info.mtime }
    }
  }

  async cleanIncomplete (before: Date): Promise<number> {
    let n = 0
    for await (const file of this.#walk(join(this.root, TEMP_DIR))) {
      const info = await stat(file).catch(() => null)
      if (info == null || info.mtime >= before) continue
      await unlink(file).catch(ignoreMissing)
      n++
    }
    return n
  }

  async directUrl (): Promise<undefined> {
    return undefined
  }

  // One directory handle at a time, so a large tree is never listed into memory at once.
  async * #walk (dir: string): AsyncGenerator<string> {
    const handle = await opendir(dir).catch((err: unknown) => {
      ignoreMissing(err)
      return null
    })
    if (handle == null) return
    for await (const entry of handle) {
      const p = join(dir, entry.name)
      if (entry.isDirectory()) yield * this.#walk(p)
      else if (entry.isFile()) yield p
    }
  }
}
