import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { generateClient, type DescribeDocument } from '@svc/client/generate'
import { buildServer } from '../build-server.js'
import { formatProblems, loadConfig, type ServerConfig } from '../config.js'
import { openDatabase } from '../database.js'

/**
 * The `_describe` document of the reference server for these settings, built without serving:
 * the manifest lists only what the loaded plugins register. It runs on a throwaway embedded
 * database, so it never touches `MONGODB_URI` or a running server's `DATA_DIR`.
 */
export async function describeLoadedSchemas (config: ServerConfig): Promise<DescribeDocument> {
  const dataDir = await mkdtemp(join(tmpdir(), 'svc-client-generate-'))
  const database = await openDatabase({ dataDir })
  try {
    const app = await buildServer(
      { ...config, mongodbUri: undefined, dataDir, uploadsDir: join(dataDir, 'uploads') },
      { db: database.db, logger: false }
    )
    try {
      await app.ready()
      return app.svc.manifest.describe() as unknown as DescribeDocument
    } finally {
      await app.close()
    }
  } finally {
    await database.close()
    await rm(dataDir, { recursive: true, force: true })
  }
}

/** `svc client generate --out DIR [--base-url URL] [--api-version V]`: writes the typed client and answers each file written. */
export async function clientGenerate (
  opts: { out: string; baseUrl?: string; apiVersion?: string },
  env: NodeJS.ProcessEnv = process.env
): Promise<string[]> {
  const { config, problems } = loadConfig(env)
  if (config == null) {
    throw new Error(
      formatProblems(problems)
        .replace(/^svc: /, '')
        .trimEnd()
    )
  }
  const files = generateClient(await describeLoadedSchemas(config), {
    ...(opts.baseUrl !== undefined ? { baseUrl: opts.baseUrl } : {}),
    ...(opts.apiVersion !== undefined ? { version: opts.apiVersion } : {})
  })
  const out = resolve(opts.out)
  await mkdir(out, { recursive: true })
  const written: string[] = []
  for (const [name, text] of Object.entries(files)) {
    await writeFile(join(out, name), text)
    written.push(join(out, name))
  }
  return written
}
