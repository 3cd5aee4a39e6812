import t, { type Test } from 'tap'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ApiClientStore } from '@svc/core/kit'
import svcFiles from '@svc/files'
import { buildApp, connect, fails, makeUser, ok, toolNames, type TestApp } from './helper.js'

// File tools over @svc/files with local storage: the same checks as the REST file routes.

const PDF = Buffer.from(
  '%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n',
  'latin1'
)
const b64 = (b: Buffer): string => b.toString('base64')

const schemas = (): unknown[] => [
  {
    path: 'contacts',
    fields: [
      { name: 'name', type: String, required: true },
      { name: 'contract', type: 'File', file: { accept: ['application/pdf'], maxBytes: 64 * 1024 } },
      { name: 'scan', type: 'File', file: { maxBytes: 3 * 1024 * 1024 } },
      { name: 'badge', type: 'File', acl: { read: ['admin'], update: ['admin'] } }
    ],
    acl: { scope: { storefront: {} } }
  },
  { path: 'notes', fields: [{ name: 'text', type: String }] }
]

async function filesApp (t: Test, withFiles = true): Promise<TestApp> {
  const uploadsDir = mkdtempSync(join(tmpdir(), 'svc-mcp-files-'))
  t.teardown(() => rmSync(uploadsDir, { recursive: true, force: true }))
  return await buildApp(t, {
    schemas: schemas(),
    before: async (app) => {
      if (withFiles) {
        await app.register(svcFiles, { uploadsDir, publicBaseUrl: 'http://files.test', reconcileIntervalMs: 0 })
      }
    }
  })
}

t.test('each File field gets upload_, fetch_ and delete_ tools; none without @svc/files', async (t) => {
  const { url } = await filesApp(t)
  const names = await toolNames(await connect(t, url, makeUser().headers))
  for (const field of ['contract', 'scan', 'badge']) {
    for (const verb of ['upload', 'fetch', 'delete']) {
      t.ok(names.includes(`${verb}_contacts_${field}`), `${verb}_contacts_${field}`)
    }
  }
  t.notOk(
    names.some((n) => n.endsWith('_notes_text')),
    'no file tools for other fields'
  )

  const bare = await filesApp(t, false)
  const bareNames = await toolNames(await connect(t, bare.url, makeUser().headers))
  t.notOk(
    bareNames.some((n) => /^(upload|fetch)_/.test(n) || /^delete_contacts_/.test(n)),
    'absent without the files plugin'
  )
})

t.test('upload, fetch (signed URL serves the bytes), record metadata, delete', async (t) => {
  const { app, url } = await filesApp(t)
  const alice = await connect(t, url, makeUser().headers)
  const c = await ok(alice, 'create_contacts', { record: { name: 'Ann' } })

  const meta = await ok(alice, 'upload_contacts_contract', {
    id: c._id,
    name: '../../etc/contract.pdf',
    contentBase64: b64(PDF)
  })
  t.match(
    meta,
    { size: PDF.length, contentType: 'application/pdf', originalName: 'contract.pdf' },
    'metadata of the stored file, name made safe'
  )
  t.notOk('url' in meta, 'a private file has no stable URL')
  t.same((await ok(alice, 'get_contacts', { id: c._id })).contract, meta, 'the record holds the same metadata')

  const fetched = await ok(alice, 'fetch_contacts_contract', { id: c._id })
  t.match(fetched, { ...meta, url: /^http:\/\/files\.test\// })
  const signed = new URL(fetched.url)
  const res = await app.inject({ method: 'GET', url: signed.pathname + signed.search })
  t.equal(res.statusCode, 200, 'the signed URL answers')
  t.same(res.rawPayload, PDF, 'with the uploaded bytes')

  t.same(await ok(alice, 'delete_contacts_contract', { id: c._id }), { id: c._id, field: 'contract', removed: true })
  t.equal((await ok(alice, 'get_contacts', { id: c._id })).contract ?? null, null, 'the field is cleared')
  t.match(await fails(alice, 'fetch_contacts_contract', { id: c._id }), { code: 'NOT_FOUND' }, 'nothing left to fetch')
  t.match(
    await fails(alice, 'delete_contacts_contract', { id: c._id }),
    { code: 'NOT_FOUND' },
    'nothing left to delete'
  )
  const blob = await app.inject({ method: 'GET', url: signed.pathname + signed.search })
  t.equal(blob.statusCode, 404, 'the blob is gone')
})

t.test('an upload larger than the default 1 MiB body limit fits the route', async (t) => {
  const { url } = await filesApp(t)
  const alice = await connect(t, url, makeUser().headers)
  const c = await ok(alice, 'create_contacts', { record: { name: 'Big' } })
  const bytes = randomBytes(2 * 1024 * 1024)
  const meta = await ok(alice, 'upload_contacts_scan', {
    id: c._id,
    name: 'scan.bin',
    contentType: 'application/octet-stream',
    contentBase64: b64(bytes)
  })
  t.equal(meta.size, bytes.length, '2 MiB stored (2.7 MB of base64)')
})

t.test('bad input is a tool error with a code and stores nothing', async (t) => {
  const { app, url } = await filesApp(t)
  const alice = await connect(t, url, makeUser().headers)
  const c = await ok(alice, 'create_contacts', { record: { name: 'Ann' } })

  t.match(
    await fails(alice, 'upload_contacts_contract', { id: c._id, name: 'a.pdf', contentBase64: 'not base64!' }),
    { code: 'VALIDATION', details: { field: 'contentBase64' } },
    'invalid base64'
  )
  t.match(
    await fails(alice, 'upload_contacts_contract', { id: c._id, name: 'a.pdf', contentBase64: 'QUJD=' }),
    { code: 'VALIDATION' },
    'badly padded base64'
  )
  t.match(
    await fails(alice, 'upload_contacts_contract', {
      id: c._id,
      name: 'a.pdf',
      contentBase64: b64(Buffer.concat([PDF, randomBytes(70 * 1024)]))
    }),
    { code: 'VALIDATION', details: { maxBytes: 64 * 1024 } },
    'over maxBytes'
  )
  t.match(
    await fails(alice, 'upload_contacts_contract', {
      id: c._id,
      name: 'a.txt',
      contentBase64: b64(Buffer.from('plain text'))
    }),
    { code: 'VALIDATION', details: { field: 'contract', accept: ['application/pdf'] } },
    'a type outside accept (as on REST)'
  )
  t.match(
    await fails(alice, 'upload_contacts_contract', { id: c._id, contentBase64: b64(PDF) }),
    { code: 'VALIDATION' },
    'name is required'
  )
  t.match(
    await fails(alice, 'upload_contacts_contract', { id: c._id, name: 'a.pdf', contentBase64: b64(PDF), extra: 1 }),
    { code: 'VALIDATION' },
    'unknown arguments'
  )
  t.match(
    await fails(alice, 'upload_contacts_contract', { id: 'nope', name: 'a.pdf', contentBase64: b64(PDF) }),
    { code: 'NOT_FOUND' },
    'malformed id'
  )
  t.match(
    await fails(alice, 'upload_contacts_badge', { id: c._id, name: 'b.pdf', contentBase64: b64(PDF) }),
    { code: 'FORBIDDEN' },
    'field ACL on the file field'
  )
  t.equal((await ok(alice, 'get_contacts', { id: c._id })).contract, undefined, 'no failed upload set the field')
  t.equal(
    await app.svc.db.collection('contacts').countDocuments({ contract: { $exists: true } }),
    0,
    'nothing stored on the record'
  )
})

t.test('tenancy: another tenant can neither upload, fetch nor delete', async (t) => {
  const { url } = await filesApp(t)
  const alice = await connect(t, url, makeUser().headers)
  const bob = await connect(t, url, makeUser().headers)
  const c = await ok(alice, 'create_contacts', { record: { name: 'Ann' } })
  const meta = await ok(alice, 'upload_contacts_contract', { id: c._id, name: 'a.pdf', contentBase64: b64(PDF) })
  t.match(await fails(bob, 'fetch_contacts_contract', { id: c._id }), { code: 'NOT_FOUND' })
  t.match(await fails(bob, 'upload_contacts_contract', { id: c._id, name: 'b.pdf', contentBase64: b64(PDF) }), {
    code: 'NOT_FOUND'
  })
  t.match(await fails(bob, 'delete_contacts_contract', { id: c._id }), { code: 'NOT_FOUND' })
  t.same((await ok(alice, 'fetch_contacts_contract', { id: c._id })).key, meta.key, "alice's file is untouched")
})

t.test('an api client sees and runs only fetch_ on its scope', async (t) => {
  const { app, url } = await filesApp(t)
  const alice = await connect(t, url, makeUser().headers)
  const c = await ok(alice, 'create_contacts', { record: { name: 'Ann' } })
  await ok(alice, 'upload_contacts_contract', { id: c._id, name: 'a.pdf', contentBase64: b64(PDF) })
  const clientDoc = await new ApiClientStore(app.svc.db).create({ role: 'storefront' })
  const client = await connect(t, url, { 'x-client-id': clientDoc._id })
  const names = await toolNames(client)
  t.ok(names.includes('fetch_contacts_contract'), 'fetch is a read tool')
  t.notOk(
    names.some((n) => n.startsWith('upload_') || n === 'delete_contacts_contract'),
    'no write file tools'
  )
  t.equal(
    (await ok(client, 'fetch_contacts_contract', { id: c._id })).size,
    PDF.length,
    'the client reads the scoped record'
  )
  t.match(
    await fails(client, 'upload_contacts_contract', { id: c._id, name: 'a.pdf', contentBase64: b64(PDF) }),
    { code: 'FORBIDDEN' },
    'a write is refused'
  )
  t.match(await fails(client, 'delete_contacts_contract', { id: c._id }), { code: 'FORBIDDEN' })
})
