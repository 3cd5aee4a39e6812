import type { Test } from 'tap'
import { readdirSync } from 'node:fs'
import { join, relative } from 'node:path'
import Fastify, { type FastifyInstance } from 'fastify'
import type { Db } from 'mongodb'
import svcCore from '@svc/core'
import softDelete from '@svc/softdelete'
import audit from '@svc/audit'
import { getTestDb, tokenUser, type TokenUser } from '@svc/testkit'
import files from '../src/index.js'
import type { FilesOptions } from '../src/types.js'
import { startS3Peer, type S3Peer } from './fixtures/s3-peer.js'
import { fileForm } from './fixtures/multipart.js'

export const JWT_SECRET = 'files-test-secret-0123456789abcdef'
export const BASE_URL = 'http://files.test'
export type Storage = 'local' | 's3'

/**
 * `contacts`: `avatar` (public PNG/JPEG, 64 KiB), `contract` (private PDF), `badge` (readable and
 * writable by `admin` only); soft delete and audit on. `logs`: hard delete, one `attachment`.
 * `storage` puts every field on one backend, so each test runs the same way on both.
 */
export function schemas (storage: Storage, hooks: Record<string, (arg: any) => unknown> = {}): unknown[] {
  return [
    {
      path: 'contacts',
      fields: [
        { name: 'name', type: String, required: true },
        {
          name: 'avatar',
          type: 'File',
          file: { maxBytes: 64 * 1024, accept: ['image/png', 'image/jpeg'], visibility: 'public', storage }
        },
        { name: 'contract', type: 'File', file: { accept: ['application/pdf'], storage } },
        { name: 'badge', type: 'File', file: { storage }, acl: { read: ['admin'], update: ['admin'] } }
      ],
      acl: { scope: { storefront: {} } },
      hooks
    },
    {
      path: 'logs',
      softDelete: false,
      fields: [
        { name: 'line', type: String },
        { name: 'attachment', type: 'File', file: { storage } }
      ]
    }
  ]
}

export interface FilesApp {
  app: FastifyInstance
  db: Db
  uploadsDir: string
  s3?: S3Peer
  /** Every stored blob key of the backend under test (local: files under the root, temp included). */
  blobs: () => Promise<string[]>
}

export interface BuildOptions {
  storage?: Storage
  schemas?: unknown[]
  files?: Partial<FilesOptions>
  /** Share one S3 peer between apps of a test. */
  s3?: S3Peer
}

function walk (dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)]
  )
}

/** core + softdelete + audit + files on a fresh database and a temp uploads dir (and an S3 peer for `s3`). */
export async function buildApp (t: Test, opts: BuildOptions = {}): Promise<FilesApp> {
  const storage = opts.storage ?? 'local'
  const { db } = await getTestDb(t)
  const uploadsDir = t.testdir({})
  const s3 = opts.s3 ?? (storage === 's3' ? await startS3Peer(t) : undefined)
  const app = Fastify({ logger: false })
  await app.register(svcCore, {
    db,
    jwtSecret: JWT_SECRET,
    bcryptRounds: 4,
    schemas: opts.schemas ?? schemas(storage),
    publicBaseUrl: BASE_URL
  })
  await app.register(softDelete, { sweepIntervalMs: 0 })
  await app.register(audit)
  await app.register(files, {
    uploadsDir,
    reconcileIntervalMs: 0,
    ...(s3 !== undefined ? { s3: s3.options } : {}),
    ...opts.files
  })
  t.teardown(async () => await app.close())
  await app.ready()
  const local = async (): Promise<string[]> =>
    walk(uploadsDir)
      .map((f) => relative(uploadsDir, f).split('\\').join('/'))
      .sort()
  return { app, db, uploadsDir, s3, blobs: storage === 's3' ? s3!.keys : local }
}

export type TestUser = TokenUser

/** A made-up tenant of this app's JWT secret. */
export function makeUser (claims: Record<string, unknown> = {}): TestUser {
  return tokenUser(JWT_SECRET, claims)
}

/** Creates a contact (or any record) and answers its id. */
export async function createRecord (
  app: FastifyInstance,
  user: TestUser,
  path = 'contacts',
  body: Record<string, unknown> = { name: 'Ada' }
): Promise<string> {
  const res = await app.inject({ method: 'POST', url: `/api/v1/${path}`, headers: user.headers, payload: body })
  if (res.statusCode !== 201) throw new Error(`create ${path}: ${res.statusCode} ${res.body}`)
  return res.json()._id
}

/** The path and query of an absolute URL the plugin handed out, for app.inject. */
export function localPath (url: string): string {
  const u = new URL(url)
  return `${u.pathname}${u.search}`
}

export interface Downloaded {
  status: number
  headers: Record<string, string>
  body: Buffer
}

/** Follows a URL the API handed out: through the app for the service's own URLs, over HTTP to S3. */
export async function download (
  app: FastifyInstance,
  url: string,
  headers: Record<string, string> = {}
): Promise<Downloaded> {
  if (url.startsWith(BASE_URL)) {
    const res = await app.inject({ method: 'GET', url: localPath(url), headers })
    if (res.statusCode === 302) return await download(app, res.headers.location as string, headers)
    return { status: res.statusCode, headers: res.headers as Record<string, string>, body: res.rawPayload }
  }
  const res = await fetch(url, { headers })
  return { status: res.status, headers: Object.fromEntries(res.headers), body: Buffer.from(await res.arrayBuffer()) }
}

/** POSTs one file part named `file` to an upload route as `user`. */
export async function upload (
  app: FastifyInstance,
  user: TestUser,
  url: string,
  content: Buffer,
  filename = 'upload.bin',
  type?: string
): Promise<Awaited<ReturnType<FastifyInstance['inject']>>> {
  const form = fileForm(content, filename, type)
  return await app.inject({ method: 'POST', url, headers: { ...user.headers, ...form.headers }, payload: form.payload })
}
