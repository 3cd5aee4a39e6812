import { existsSync } from 'node:fs'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import Fastify from 'fastify'
import svcCore from '@svc/core'
import { getTestDb } from '@svc/testkit'
import files from '../src/index.js'
import type { FilesOptions } from '../src/types.js'
import { buildApp, JWT_SECRET, makeUser, schemas } from './helper.js'

t.test('_describe: features.files, file options and the three routes per file field', async (t) => {
  const { app } = await buildApp(t)
  const m = (await app.inject({ method: 'GET', url: '/_describe' })).json()
  t.equal(m.features.files, true)
  const contacts = m.schemas.find((s: { path: string }) => s.path === 'contacts')
  t.same(contacts.fileFields, ['avatar', 'contract', 'badge'])
  t.same(contacts.fields.find((f: { name: string }) => f.name === 'avatar').file, {
    maxBytes: 65536,
    accept: ['image/png', 'image/jpeg'],
    storage: 'local',
    visibility: 'public'
  })
  const fileRoutes = contacts.endpoints.rest.filter((e: { path: string }) =>
    /\/:id\/(avatar|contract|badge)$/.test(e.path)
  )
  t.same(
    fileRoutes,
    ['avatar', 'contract', 'badge'].flatMap((f) =>
      ['POST', 'GET', 'DELETE'].map((method) => ({ method, path: `/api/v1/contacts/:id/${f}` }))
    ),
    'upload, fetch and delete of each file field'
  )
  const u = makeUser()
  for (const e of fileRoutes) {
    const res = await app.inject({
      method: e.method,
      url: e.path.replace(':id', '65f0000000000000000000ff'),
      headers: u.headers
    })
    t.notMatch(
      res.json().error?.message ?? '',
      /^route .* not found$/,
      `${e.method as string} ${e.path as string} is routed`
    )
  }
})

async function register (
  t: Test,
  opts: Partial<FilesOptions>,
  coreOpts: Record<string, unknown> = {}
): Promise<unknown> {
  const { db } = await getTestDb(t)
  const app = Fastify({ logger: false })
  t.teardown(async () => await app.close())
  await app.register(svcCore, { db, jwtSecret: JWT_SECRET, bcryptRounds: 4, schemas: schemas('s3'), ...coreOpts })
  try {
    await app.register(files, { uploadsDir: t.testdir({}), reconcileIntervalMs: 0, ...opts })
    await app.ready()
  } catch (err) {
    return err
  }
}

t.test('start-up refuses what cannot work, naming it', async (t) => {
  const s3 = { bucket: 'b', region: 'us-east-1', endpoint: 'http://127.0.0.1:9' }
  t.match(
    await register(t, { publicBaseUrl: 'http://x.test' }),
    { message: /storage 's3' needs the s3 option.*field avatar/ },
    's3 fields without STORAGE_S3_*'
  )
  t.match(await register(t, { s3 }), { message: /publicBaseUrl/ }, 'no base for file URLs')
  t.match(await register(t, { s3, publicBaseUrl: 'ftp://x' }), { message: /publicBaseUrl/ })
  t.match(await register(t, { s3, publicBaseUrl: 'http://x.test', signedUrlTtlSeconds: 0 }), {
    message: /signedUrlTtlSeconds/
  })
  t.match(await register(t, { s3, publicBaseUrl: 'http://x.test', orphanGraceMs: -1 }), { message: /orphanGraceMs/ })
  t.equal(
    await register(t, { s3 }, { publicBaseUrl: 'http://core.test/' }),
    undefined,
    "core's publicBaseUrl is the default base"
  )
})

t.test('the uploads directory is created at start', async (t) => {
  const root = join(t.testdir({}), 'deep', 'uploads')
  const { db } = await getTestDb(t)
  const app = Fastify({ logger: false })
  t.teardown(async () => await app.close())
  await app.register(svcCore, {
    db,
    jwtSecret: JWT_SECRET,
    bcryptRounds: 4,
    schemas: schemas('local'),
    publicBaseUrl: 'http://x.test'
  })
  await app.register(files, { uploadsDir: root, reconcileIntervalMs: 0 })
  await app.ready()
  t.ok(existsSync(join(root, '.incoming')), 'UPLOADS_DIR and its temp directory exist before the first upload')
})
