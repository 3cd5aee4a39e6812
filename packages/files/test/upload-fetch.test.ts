import t from 'tap'
import { randomBytes } from 'node:crypto'
import { readdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { BASE_URL, buildApp, createRecord, download, makeUser, upload, type Storage } from './helper.js'
import { jpeg, pdf, png } from './fixtures/content.js'
import { startS3Peer } from './fixtures/s3-peer.js'

const KEY = /^[0-9a-f]{24}\/contacts\/(avatar|contract)\/[0-9a-f]{24}-[0-9a-f]{12}\.(png|jpg|pdf)$/

for (const storage of ['local', 's3'] as Storage[]) {
  t.test(`${storage}: upload, read back, replace, delete`, async (t) => {
    const { app, blobs } = await buildApp(t, { storage })
    const u = makeUser()
    const id = await createRecord(app, u)
    const image = png(3000)
    let first: Record<string, any>
    {
      const res = await upload(app, u, `/api/v1/contacts/${id}/avatar`, image, 'me.png', 'image/png')
      t.equal(res.statusCode, 200, `POST avatar: ${res.body}`)
      first = res.json()
      t.same(
        Object.keys(first).sort(),
        ['contentType', 'key', 'originalName', 'size', 'uploadedAt', 'url'],
        'FileMeta exactly, url for a public file'
      )
      t.match(first, { size: image.length, contentType: 'image/png', originalName: 'me.png' })
      t.match(first.key, KEY)
      t.ok(first.key.startsWith(`${u.userId}/contacts/avatar/${id}-`), 'key namespaced by tenant, path, field and id')
      t.equal(first.url, `${BASE_URL}/files/${first.key as string}`, 'public: a stable URL')
      t.ok(Math.abs(Date.parse(first.uploadedAt) - Date.now()) < 60_000, 'uploadedAt is now')
      t.same(await blobs(), [first.key], 'one blob stored')
    }
    {
      const res = await app.inject({ method: 'GET', url: `/api/v1/contacts/${id}`, headers: u.headers })
      t.same(res.json().avatar, first, 'the record carries the FileMeta')
    }
    {
      const res = await app.inject({ method: 'GET', url: `/api/v1/contacts/${id}/avatar`, headers: u.headers })
      t.equal(res.statusCode, 200)
      t.same(res.json(), first, 'fetch: FileMeta plus its stable url')
      const got = await download(app, res.json().url)
      t.equal(got.status, 200, 'the public URL serves the file')
      t.same(got.body, image, 'byte for byte')
      t.equal(got.headers['content-type'], 'image/png')
    }
    let second: Record<string, any>
    {
      const replacement = jpeg(5000)
      const res = await upload(app, u, `/api/v1/contacts/${id}/avatar`, replacement, 'new.jpg')
      t.equal(res.statusCode, 200, 'replace')
      second = res.json()
      t.not(second.key, first.key, 'a new key for every upload')
      t.match(second, { contentType: 'image/jpeg', size: 5000 })
      t.same(await blobs(), [second.key], 'the old blob is gone once the new one is recorded')
      const stale = await download(app, first.url)
      t.equal(stale.status, 404, 'the old URL serves nothing')
      t.same((await download(app, second.url)).body, replacement)
    }
    {
      const contract = pdf()
      const res = await upload(app, u, `/api/v1/contacts/${id}/contract`, contract, 'deal.pdf')
      t.equal(res.statusCode, 200, 'private PDF')
      t.notOk('url' in res.json(), 'no url in the stored shape of a private file')
      const fetched = (
        await app.inject({ method: 'GET', url: `/api/v1/contacts/${id}/contract`, headers: u.headers })
      ).json()
      const url = new URL(fetched.url)
      if (storage === 'local') {
        t.equal(url.origin, BASE_URL, 'served by the service')
        t.ok(url.searchParams.has('sig') && url.searchParams.has('exp'), 'signed')
        t.ok(Number(url.searchParams.get('exp')) - Date.now() / 1000 <= 300, 'valid about 5 minutes')
      } else {
        t.ok(url.searchParams.has('X-Amz-Signature'), 'an S3 presigned URL')
        t.equal(url.searchParams.get('X-Amz-Expires'), '300')
      }
      const got = await download(app, fetched.url)
      t.equal(got.status, 200)
      t.same(got.body, contract, 'the private file downloads through its signed URL')
      t.equal(got.headers['content-type'], 'application/pdf')
      t.match(got.headers['content-disposition'], /^attachment; filename="deal\.pdf"$/, 'not inline: PDFs download')
    }
    {
      const res = await app.inject({ method: 'DELETE', url: `/api/v1/contacts/${id}/avatar`, headers: u.headers })
      t.equal(res.statusCode, 200)
      t.same(res.json(), { ok: true })
      const record = (await app.inject({ method: 'GET', url: `/api/v1/contacts/${id}`, headers: u.headers })).json()
      t.notOk('avatar' in record, 'field cleared')
      t.equal((await blobs()).length, 1, 'only the contract is left')
      t.equal((await download(app, second.url)).status, 404, 'deleted file: 404')
    }
    for (const method of ['GET', 'DELETE'] as const) {
      const res = await app.inject({ method, url: `/api/v1/contacts/${id}/avatar`, headers: u.headers })
      t.equal(res.statusCode, 404, `${method} an empty field`)
      t.equal(res.json().error.code, 'NOT_FOUND')
    }
  })
}

t.test('s3: a blob over multipartAboveBytes goes multipart and reads back whole; no spool file stays', async (t) => {
  const spools = (): number => readdirSync(tmpdir()).filter((f) => f.startsWith('svc-s3-')).length
  const before = spools()
  const s3 = await startS3Peer(t)
  const { app } = await buildApp(t, {
    storage: 's3',
    s3,
    schemas: [
      {
        path: 'logs',
        fields: [{ name: 'attachment', type: 'File', file: { storage: 's3', maxBytes: 8 * 1024 * 1024 } }]
      }
    ],
    // S3's minimum part size: a 6 MiB blob takes the multipart path.
    files: { s3: { ...s3.options, multipartAboveBytes: 5 * 1024 * 1024 } }
  })
  const u = makeUser()
  const id = await createRecord(app, u, 'logs', {})
  const content = randomBytes(6 * 1024 * 1024)
  const res = await upload(app, u, `/api/v1/logs/${id}/attachment`, content, 'big.bin')
  t.equal(res.statusCode, 200, res.body)
  const fetched = await app.inject({ method: 'GET', url: `/api/v1/logs/${id}/attachment`, headers: u.headers })
  const got = await download(app, fetched.json().url)
  t.equal(got.status, 200)
  t.ok(got.body.equals(content), '6 MiB read back byte for byte')
  t.equal(spools(), before, 'the spool file is gone')
  t.same(await s3.keys(), [res.json().key], 'one object, no leftover parts')

  const refused = await upload(app, u, `/api/v1/logs/${id}/attachment`, randomBytes(9 * 1024 * 1024), 'huge.bin')
  t.equal(refused.statusCode, 400, 'over maxBytes')
  t.equal(spools(), before, 'a refused upload leaves no spool file either')
  t.same(await s3.keys(), [res.json().key], 'and no object')
})

t.test('s3: multipartAboveBytes outside 5 MiB..5 GiB is refused at start', async (t) => {
  const s3 = await startS3Peer(t)
  await t.rejects(
    buildApp(t, { storage: 's3', s3, files: { s3: { ...s3.options, multipartAboveBytes: 1024 } } }),
    /multipartAboveBytes/
  )
})
