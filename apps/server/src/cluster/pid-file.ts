import { mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'

/** Where a cluster primary writes its pid, so `svc reload` on the same machine can signal it. */
export function pidFilePath (dataDir: string): string {
  return join(dataDir, 'svc-primary.pid')
}

export async function writePidFile (dataDir: string): Promise<() => Promise<void>> {
  const path = pidFilePath(dataDir)
  await mkdir(dataDir, { recursive: true })
  await writeFile(path, `${process.pid}\n`)
  return async () => {
    await rm(path, { force: true })
  }
}

/** The pid of a running primary, or null when the file is missing, malformed or names no live process. */
export async function readPrimaryPid (dataDir: string): Promise<number | null> {
  const raw = await readFile(pidFilePath(dataDir), 'utf8').catch(() => null)
  const pid = raw == null ? NaN : Number(raw.trim())
  if (!Number.isInteger(pid) || pid <= 0) return null
  try {
    process.kill(pid, 0)
    return pid
  } catch {
    return null
  }
}
