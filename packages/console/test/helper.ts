import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Fastify, { type FastifyInstance } from 'fastify'
import type { Db } from 'mongodb'
import svcCore, { svcServerOptions } from '@svc/core'
import svcAudit from '@svc/audit'
import svcFiles from '@svc/files'
import svcSoftDelete from '@svc/softdelete'
import svcSurface from '@svc/surface'
import svcWebhooks from '@svc/webhooks'
import svcRealtime from '@svc/realtime'
import { getTestDb, registerUser, type RegisteredUser } from '@svc/testkit'
import svcConsole, { type ConsoleOptions } from '../src/index.js'

export const JWT_SECRET = 'console-test-secret-0123456789abcdef'
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
/** The repository's example CRM schemas: every field feature the console renders. */
export const SCHEMA_DIR = join(import.meta.dirname, '..', '..', '..', 'schema')

interface Tap {
  teardown: (fn: () => unknown) => void
}

export interface ConsoleServer {
  app: FastifyInstance
  url: string
  db: Db
}

async function freePort (): Promise<number> {
  return await new Promise((resolve, reject) => {
    const s = createServer()
    s.once('error', reject)
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number }
      s.close(() => {
        resolve(port)
      })
    })
  })
}

/**
 * The reference composition (surface with its security headers, core, soft delete, audit, files,
 * webhooks, realtime unless `realtime: false`; `core` adds core options) plus the console,
 * listening on 127.0.0.1 for a browser. File URLs need the address up front: a free port is picked first.
 */
export async function startConsoleServer (
  t: Tap,
  opts: ConsoleOptions = {},
  { realtime = true, core = {} }: { realtime?: boolean; core?: Record<string, unknown> } = {}
): Promise<ConsoleServer> {
  const { db } = await getTestDb(t)
  const port = await freePort()
  const url = `http://127.0.0.1:${port}`
  const uploads = mkdtempSync(join(tmpdir(), 'svc-console-'))
  t.teardown(() => {
    rmSync(uploads, { recursive: true, force: true })
  })
  const app = Fastify({ ...svcServerOptions, logger: false })
  // No load shedding: CI runs Chromium beside three other suites on 2 cores, and a lag past 1 s
  // answered a save with 503 (live-updates.test waited 30 s for "Saved.").
  await app.register(svcSurface, { rateLimit: false, metrics: false, docs: false, cors: false, loadShedding: false })
  await app.register(svcCore, { db, schemaDir: SCHEMA_DIR, jwtSecret: JWT_SECRET, publicBaseUrl: url, ...core })
  await app.register(svcSoftDelete)
  await app.register(svcAudit)
  await app.register(svcFiles, { uploadsDir: uploads, publicBaseUrl: url })
  await app.register(svcWebhooks, { allowPrivateUrls: true, retrySchedule: [0.2, 0.2] })
  if (realtime) await app.register(svcRealtime)
  await app.register(svcConsole, opts)
  t.teardown(async () => await app.close())
  await app.listen({ host: '127.0.0.1', port })
  return { app, url, db }
}

/** A registered user with the given roles (set in the users collection, as `svc users set-roles` does). */
export async function userWithRoles (server: ConsoleServer, roles: string[]): Promise<RegisteredUser> {
  const u = await registerUser(server.app)
  await server.db.collection('users').updateOne({ email: u.user.email }, { $set: { roles } })
  // Roles reach tokens at the next login.
  const res = await server.app.inject({
    method: 'POST',
    url: '/login',
    payload: { email: u.user.email, password: u.password }
  })
  const session = res.json() as { accessToken: string; refreshToken: string }
  return { ...u, ...session, headers: { authorization: `Bearer ${session.accessToken}` } }
}

export function chromiumOrSkip (t: { plan: (n: number, why: string) => void }, what: string): boolean {
  if (existsSync(CHROMIUM)) return true
  process.stderr.write(
    `\n!!! @svc/console ${what} SKIPPED: no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH) !!!\n\n`
  )
  t.plan(0, `no Chromium at ${CHROMIUM} (set CHROMIUM_PATH)`)
  return false
}
