import { Readable } from 'node:stream'
import t from 'tap'
import type { RequestContext } from '@svc/core'
import { buildApp, createRecord, download, makeUser, schemas, upload } from './helper.js'
import { png } from './fixtures/content.js'

// `app.svc.files` as the MCP tools call it: a Readable built from base64 content, no HTTP request.

function mcp (userId: string, roles = ['user']): RequestContext {
  return { identity: { kind: 'user', userId, roles }, surface: 'mcp' }
}

t.test('fields, upload from any Readable, fetch, remove', async (t) => {
  const { app, blobs } = await buildApp(t)
  const files = app.svc.files!
  t.same(
    files.fields('contacts').map((f) => [f.name, f.file]),
    [
      ['avatar', { maxBytes: 65536, accept: ['image/png', 'image/jpeg'], visibility: 'public', storage: 'local' }],
      [
        'contract',
        { maxBytes: 10 * 1024 * 1024, accept: ['application/pdf'], storage: 'local', visibility: 'private' }
      ],
      ['badge', { maxBytes: 10 * 1024 * 1024, storage: 'local', visibility: 'private' }]
    ],
    'file fields with their options'
  )
  t.same(
    files.fields('logs').map((f) => f.name),
    ['attachment']
  )
  const u = makeUser()
  const id = await createRecord(app, u)
  const image = png(2000)
  const base64 = image.toString('base64')
  const meta = await files.upload(mcp(u.userId), 'contacts', id, 'avatar', {
    stream: Readable.from([Buffer.from(base64, 'base64')]),
    filename: 'tool.png',
    mimetype: 'image/png'
  })
  t.match(meta, { size: 2000, contentType: 'image/png', originalName: 'tool.png' })
  const fetched = await files.fetch(mcp(u.userId), 'contacts', id, 'avatar')
  t.same((await download(app, fetched.url)).body, image)
  await files.remove(mcp(u.userId), 'contacts', id, 'avatar')
  t.same(await blobs(), [])
  await t.rejects(files.fetch(mcp(u.userId), 'contacts', id, 'avatar'), { code: 'NOT_FOUND' }, 'empty after remove')
  await t.rejects(
    files.remove(mcp(u.userId), 'contacts', id, 'avatar'),
    { code: 'NOT_FOUND' },
    'a second remove is 404'
  )
  await t.rejects(
    files.upload(mcp(u.userId), 'contacts', id, 'avatar', { stream: Readable.from([png(70_000)]), filename: 'x.png' }),
    { code: 'VALIDATION', details: { recoverable: true } },
    'maxBytes holds on the API too'
  )
  await t.rejects(
    files.fetch(mcp(makeUser().userId), 'contacts', id, 'avatar'),
    { code: 'NOT_FOUND' },
    'tenancy holds on the API too'
  )
  t.throws(() => files.fields('nope'), /no schema 'nope'/)
})

t.test('a limit below the sniffed head is enforced too; an empty file is stored as octet-stream', async (t) => {
  const { app } = await buildApp(t, {
    schemas: [{ path: 'tiny', fields: [{ name: 'f', type: 'File', file: { maxBytes: 100 } }] }]
  })
  const u = makeUser()
  const id = await createRecord(app, u, 'tiny', {})
  await t.rejects(
    app.svc.files!.upload(mcp(u.userId), 'tiny', id, 'f', {
      stream: Readable.from([Buffer.alloc(60), Buffer.alloc(60)]),
      filename: 'a'
    }),
    { code: 'VALIDATION', details: { maxBytes: 100 } }
  )
  const empty = await app.svc.files!.upload(mcp(u.userId), 'tiny', id, 'f', {
    stream: Readable.from([]),
    filename: 'empty'
  })
  t.match(empty, { size: 0, contentType: 'application/octet-stream' })
  t.match(empty.key, /\.bin$/)
})

t.test('a record deleted while its file streams: 404, and the stored blob is removed', async (t) => {
  const { app, blobs } = await buildApp(t)
  const u = makeUser()
  const id = await createRecord(app, u)
  async function * slow (): AsyncGenerator<Buffer> {
    yield png(3000)
    await app.inject({ method: 'DELETE', url: `/api/v1/contacts/${id}`, headers: u.headers })
    yield Buffer.alloc(10)
  }
  await t.rejects(
    app.svc.files!.upload(mcp(u.userId), 'contacts', id, 'avatar', {
      stream: Readable.from(slow()),
      filename: 'a.png'
    }),
    { code: 'NOT_FOUND' }
  )
  t.same(await blobs(), [], 'nothing left behind')
})

t.test('a storage failure is a 500 that records nothing', async (t) => {
  // Nothing listens on port 9 of the loopback: every S3 call fails to connect.
  const { app, db } = await buildApp(t, {
    storage: 's3',
    files: { s3: { bucket: 'b', region: 'us-east-1', endpoint: 'http://127.0.0.1:9' } }
  })
  const u = makeUser()
  const id = await createRecord(app, u)
  const res = await upload(app, u, `/api/v1/contacts/${id}/avatar`, png(300))
  t.equal(res.statusCode, 500, 'the storage error surfaces')
  t.equal(res.json().error.code, 'INTERNAL')
  t.notOk((await db.collection('contacts').findOne({}))?.avatar, 'no metadata without a blob')
  t.equal(
    (await app.inject({ method: 'GET', url: `/api/v1/contacts/${id}`, headers: u.headers })).statusCode,
    200,
    'the process is still serving'
  )
})

t.test('schemas of another version get their own routes and API calls', async (t) => {
  const v2 = {
    path: 'contacts',
    version: 'v2',
    collection: 'contacts_v2',
    fields: [
      { name: 'name', type: String },
      { name: 'photo', type: 'File', file: { visibility: 'public' } }
    ]
  }
  const { app } = await buildApp(t, { schemas: [...schemas('local'), v2] })
  const u = makeUser()
  const id = (
    await app.inject({ method: 'POST', url: '/api/v2/contacts', headers: u.headers, payload: { name: 'v2' } })
  ).json()._id
  const meta = await app.svc.files!.upload(
    mcp(u.userId),
    'contacts',
    id,
    'photo',
    { stream: Readable.from([png(100)]), filename: 'p.png' },
    'v2'
  )
  t.match(meta.key, new RegExp(`^${u.userId}/contacts/photo/${id}-`))
  const res = await app.inject({ method: 'GET', url: `/api/v2/contacts/${id}/photo`, headers: u.headers })
  t.equal(res.statusCode, 200, 'GET /api/v2/contacts/:id/photo')
  t.equal((await download(app, res.json().url)).status, 200, 'served although the path exists in v1 too')
  t.equal(
    (await app.inject({ method: 'GET', url: `/api/v1/contacts/${id}/photo`, headers: u.headers })).statusCode,
    400,
    'v1 contacts has no photo field'
  )
})
