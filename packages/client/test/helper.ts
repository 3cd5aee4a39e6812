import { randomUUID } from 'node:crypto'
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Test } from 'tap'
import Fastify, { type FastifyInstance } from 'fastify'
import type { Db } from 'mongodb'
import svcCore, { svcServerOptions } from '@svc/core'
import audit from '@svc/audit'
import files from '@svc/files'
import softDelete from '@svc/softdelete'
import { getTestDb } from '@svc/testkit'
import { generateClient, type DescribeDocument, type GenerateOptions } from '../src/generate/index.js'

export const JWT_SECRET = 'client-test-secret-0123456789abcdef'
const GEN_ROOT = fileURLToPath(new URL('.gen/', import.meta.url))

export interface LiveServer {
  app: FastifyInstance
  db: Db
  /** `http://127.0.0.1:<port>` */
  url: string
  describe: DescribeDocument
}

async function freePort (): Promise<number> {
  return await new Promise((resolve, reject) => {
    const s = createServer()
      .listen(0, '127.0.0.1', () => {
        const { port } = s.address() as { port: number }
        s.close(() => resolve(port))
      })
      .on('error', reject)
  })
}

/** The reference plugin set (core, soft delete, audit, files) listening on an ephemeral port. */
export async function startServer (
  t: Test,
  schemas: unknown[],
  extraRoutes?: (app: FastifyInstance) => void
): Promise<LiveServer> {
  const { db } = await getTestDb(t)
  const port = await freePort()
  const url = `http://127.0.0.1:${port}`
  // As the reference server does: a UUID per request, answered in `x-request-id`.
  const app = Fastify({ ...svcServerOptions, logger: false, genReqId: () => randomUUID() })
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id)
  })
  await app.register(svcCore, { db, jwtSecret: JWT_SECRET, bcryptRounds: 4, schemas, publicBaseUrl: url })
  await app.register(softDelete, { sweepIntervalMs: 0 })
  await app.register(audit)
  await app.register(files, { uploadsDir: t.testdir({}), reconcileIntervalMs: 0 })
  extraRoutes?.(app)
  t.teardown(async () => await app.close())
  await app.listen({ port, host: '127.0.0.1' })
  return { app, db, url, describe: app.svc.manifest.describe() as unknown as DescribeDocument }
}

/**
 * Writes a generated client to `test/.gen/<name>/index.ts` (inside the package, so its
 * `@svc/client` import resolves to this package) and answers the file's path.
 */
export function writeClient (t: Test, name: string, describe: DescribeDocument, opts: GenerateOptions = {}): string {
  const dir = join(GEN_ROOT, `${name}-${process.pid}`)
  mkdirSync(dir, { recursive: true })
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  for (const [file, text] of Object.entries(generateClient(describe, opts))) writeFileSync(join(dir, file), text)
  return join(dir, 'index.ts')
}

/** A 1×1 PNG's signature and IHDR: enough for the type sniffer. */
export const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108000000003a7e9b55' + '00'.repeat(64),
  'hex'
)

let seq = 0
/** A unique e-mail for `register`. */
export function email (): string {
  return `user${process.pid}-${Date.now()}-${seq++}@example.test`
}
