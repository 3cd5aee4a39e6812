import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { createHmac } from 'node:crypto'
import t from 'tap'
import { buildApp, createRecord, download, localPath, makeUser, upload } from './helper.js'
import { pdf, png } from './fixtures/content.js'

const SECRET = 'files-signing-secret-for-tests'

/** An independent signer (node:crypto), so the test never shares code with the verifier. */
function sign (key: string, exp: number, secret = SECRET): string {
  return createHmac('sha256', secret).update(`GET\n${key}\n${exp}`).digest('base64url')
}

t.test('local signed URLs: signature, expiry and key are all checked', async (t) => {
  let now = new Date('2030-01-01T00:00:00Z')
  const { app } = await buildApp(t, { files: { signingSecret: SECRET, now: () => now } })
  const u = makeUser()
  const id = await createRecord(app, u)
  const contract = pdf()
  await upload(app, u, `/api/v1/contacts/${id}/contract`, contract, 'c.pdf')
  const { url, key } = (
    await app.inject({ method: 'GET', url: `/api/v1/contacts/${id}/contract`, headers: u.headers })
  ).json()
  const signed = new URL(url)
  const exp = Number(signed.searchParams.get('exp'))
  t.equal(exp, now.getTime() / 1000 + 300, 'expires 300 s after the fetch')
  t.equal(
    signed.searchParams.get('sig'),
    sign(key, exp),
    'HMAC-SHA256 over method, key and expiry with FILES_SIGNING_SECRET'
  )
  t.same((await download(app, url)).body, contract, 'a valid link works without any bearer')

  const path = `/files/${key as string}`
  const cases: Array<[string, string]> = [
    ['no signature', path],
    ['a tampered signature', `${path}?exp=${exp}&sig=${sign(key, exp).replace(/^./, (c) => (c === 'A' ? 'B' : 'A'))}`],
    ['a later expiry with the old signature', `${path}?exp=${exp + 3600}&sig=${sign(key, exp)}`],
    ['a signature made with another secret', `${path}?exp=${exp}&sig=${sign(key, exp, 'guess')}`],
    ['a non-numeric expiry', `${path}?exp=soon&sig=${sign(key, exp)}`]
  ]
  for (const [what, target] of cases) {
    const res = await app.inject({ method: 'GET', url: target })
    t.equal(res.statusCode, 403, what)
    t.equal(res.json().error.code, 'FORBIDDEN', `${what}: FORBIDDEN`)
  }
  {
    // Another key with this key's signature: the signature covers the key.
    const other = key.replace(/contract\/([0-9a-f]{24})-[0-9a-f]{12}/, 'contract/$1-000000000000')
    t.equal(
      (await app.inject({ method: 'GET', url: `/files/${other as string}?exp=${exp}&sig=${sign(key, exp)}` }))
        .statusCode,
      403,
      'the signature of one key does not open another'
    )
  }
  now = new Date(now.getTime() + 301_000)
  {
    const res = await app.inject({ method: 'GET', url: localPath(url) })
    t.equal(res.statusCode, 403, 'expired after 300 s')
    t.match(res.json().error.message, /expired/)
  }
  {
    const fresh = (
      await app.inject({ method: 'GET', url: `/api/v1/contacts/${id}/contract`, headers: u.headers })
    ).json().url
    t.equal((await download(app, fresh)).status, 200, 'fetching again gives a new working link')
  }
})

t.test('a public URL never opens a private file; a private key needs its signature', async (t) => {
  const { app } = await buildApp(t)
  const u = makeUser()
  const id = await createRecord(app, u)
  const { key } = (await upload(app, u, `/api/v1/contacts/${id}/contract`, pdf(), 'c.pdf')).json()
  const res = await app.inject({ method: 'GET', url: `/files/${key as string}` })
  t.equal(res.statusCode, 403, 'the unsigned (public-style) URL of a private file')
})

t.test('download responses: safe headers, Range, HEAD, conditional GET', async (t) => {
  const { app } = await buildApp(t)
  const u = makeUser()
  const id = await createRecord(app, u)
  const image = png(4000)
  const { url } = (await upload(app, u, `/api/v1/contacts/${id}/avatar`, image, 'a.png')).json()
  const path = new URL(url).pathname
  {
    const res = await app.inject({ method: 'GET', url: path })
    t.equal(res.statusCode, 200)
    t.match(
      res.headers,
      {
        'content-type': 'image/png',
        'content-disposition': 'inline; filename="a.png"',
        'x-content-type-options': 'nosniff',
        'content-security-policy': "default-src 'none'; sandbox",
        'accept-ranges': 'bytes',
        'content-length': String(image.length),
        'cache-control': 'public, max-age=60'
      },
      'stored type, inline for a raster image, nosniff, sandboxed'
    )
    const etag = res.headers.etag as string
    t.ok(etag, 'an ETag')
    const again = await app.inject({ method: 'GET', url: path, headers: { 'if-none-match': etag } })
    t.equal(again.statusCode, 304, 'conditional GET')
  }
  {
    const res = await app.inject({ method: 'GET', url: path, headers: { range: 'bytes=100-199' } })
    t.equal(res.statusCode, 206, 'a byte range')
    t.equal(res.headers['content-range'], `bytes 100-199/${image.length}`)
    t.same(res.rawPayload, image.subarray(100, 200))
    t.equal(res.headers['content-type'], 'image/png', 'the stored type on partial content too')
  }
  {
    const res = await app.inject({ method: 'GET', url: path, headers: { range: `bytes=${image.length + 10}-` } })
    t.equal(res.statusCode, 416, 'an unsatisfiable range')
    t.equal(res.headers['content-range'], `bytes */${image.length}`)
  }
  {
    const res = await app.inject({ method: 'HEAD', url: path })
    t.equal(res.statusCode, 200, 'HEAD')
    t.equal(res.headers['content-length'], String(image.length))
    t.equal(res.rawPayload.length, 0)
  }
})

t.test('types off the inline list are attachments; private files are not cached', async (t) => {
  const { app } = await buildApp(t, {
    schemas: [
      {
        path: 'notes',
        fields: [
          { name: 'body', type: String },
          { name: 'page', type: 'File' }
        ]
      }
    ]
  })
  const u = makeUser()
  const id = await createRecord(app, u, 'notes', { body: 'x' })
  const html = Buffer.from('<html><script>alert(document.cookie)</script></html>')
  const res = await upload(app, u, `/api/v1/notes/${id}/page`, html, 'x.html', 'text/html')
  t.equal(res.json().contentType, 'text/html', 'a type file-type cannot sniff is taken as declared')
  t.match(res.json().key, /\.html$/, 'its extension from the type')
  const { url } = (await app.inject({ method: 'GET', url: `/api/v1/notes/${id}/page`, headers: u.headers })).json()
  const got = await download(app, url)
  t.equal(got.status, 200)
  t.equal(got.headers['content-disposition'], 'attachment; filename="x.html"', 'HTML is never rendered inline')
  t.equal(got.headers['x-content-type-options'], 'nosniff')
  t.equal(got.headers['content-security-policy'], "default-src 'none'; sandbox")
  t.equal(got.headers['cache-control'], 'private, no-store')
})

t.test('no path traversal through the download route', async (t) => {
  const { app, uploadsDir } = await buildApp(t)
  const u = makeUser()
  const id = await createRecord(app, u)
  await upload(app, u, `/api/v1/contacts/${id}/avatar`, png(300))
  t.testdir({ 'secret.txt': 'top secret' })
  for (const target of [
    '/files/../../../../etc/passwd',
    '/files/%2e%2e/%2e%2e/etc/passwd',
    '/files/..%2f..%2fetc%2fpasswd',
    `/files/${u.userId}/contacts/avatar/..%2F..%2F..%2F..%2Fsecret.txt`,
    '/files/.incoming/x',
    `/files/${encodeURIComponent(uploadsDir)}/x.png`,
    '/files/%00',
    '/files/'
  ]) {
    const res = await app.inject({ method: 'GET', url: target })
    t.ok(res.statusCode === 404 || res.statusCode === 400, `${target}: ${res.statusCode}`)
    t.notMatch(res.body, /top secret|root:/, `${target}: no file content`)
  }
})

t.test('a valid link to a blob that is gone from disk is a 404, like a missing record', async (t) => {
  const ctx = await buildApp(t)
  const u = makeUser()
  const id = await createRecord(ctx.app, u)
  await upload(ctx.app, u, `/api/v1/contacts/${id}/avatar`, png(300), 'a.png')
  const { url, key } = (
    await ctx.app.inject({ method: 'GET', url: `/api/v1/contacts/${id}/avatar`, headers: u.headers })
  ).json()
  rmSync(join(ctx.uploadsDir, key as string))
  const res = await ctx.app.inject({ method: 'GET', url: localPath(url) })
  t.equal(res.statusCode, 404)
  t.same(res.json(), { error: { code: 'NOT_FOUND', message: 'file not found' } })
})
