import { chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'

/**
 * A development server whose JWT_SECRET was generated keeps it in `<DATA_DIR>/jwt-secret` (mode
 * 0600) while it runs, so `svc token` on the same machine can sign tokens it accepts. Still one
 * secret per process: a restart writes a new one and earlier tokens stop working.
 */
export function localSecretPath (dataDir: string): string {
  return join(dataDir, 'jwt-secret')
}

export async function keepLocalSecret (dataDir: string, secret: string): Promise<() => Promise<void>> {
  const path = localSecretPath(dataDir)
  await mkdir(dataDir, { recursive: true })
  await writeFile(path, `${secret}\n`, { mode: 0o600 })
  await chmod(path, 0o600)
  return async () => {
    await rm(path, { force: true })
  }
}

/** JWT_SECRET, else the running development server's kept secret, else null. */
export async function signingSecret (env: NodeJS.ProcessEnv): Promise<string | null> {
  const set = env.JWT_SECRET?.trim()
  if (set != null && set !== '') return set
  const kept = await readFile(localSecretPath(env.DATA_DIR?.trim() || './.data'), 'utf8').catch(() => null)
  return kept?.trim() || null
}
