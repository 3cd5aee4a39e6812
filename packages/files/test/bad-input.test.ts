import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { buildApp, createRecord, makeUser, upload, type FilesApp, type Storage } from './helper.js'
import { multipart } from './fixtures/multipart.js'
import { jpeg, pdf, png } from './fixtures/content.js'

/** Nothing stored: no blob, no temp file, no metadata on the record. */
async function assertNothingStored (t: Test, ctx: FilesApp, id: string, what: string): Promise<void> {
  t.same(await ctx.blobs(), [], `${what}: no blob`)
  t.same(readdirSync(join(ctx.uploadsDir, '.incoming')), [], `${what}: no temp file left`)
  const doc = await ctx.db.collection('contacts').findOne({})
  t.notOk(doc?.avatar ?? doc?.contract, `${what}: no metadata on record ${id}`)
}

for (const storage of ['local', 's3'] as Storage[]) {
  t.test(`${storage}: size and type are refused while streaming, and nothing is stored`, async (t) => {
    const ctx = await buildApp(t, { storage })
    const { app } = ctx
    const u = makeUser()
    const id = await createRecord(app, u)
    const url = `/api/v1/contacts/${id}/avatar`
    {
      const res = await upload(app, u, url, png(100 * 1024), 'big.png', 'image/png')
      t.equal(res.statusCode, 400, 'oversize (64 KiB limit)')
      t.match(res.json().error, {
        code: 'VALIDATION',
        details: { field: 'avatar', recoverable: true, maxBytes: 64 * 1024 }
      })
      await assertNothingStored(t, ctx, id, 'oversize')
    }
    {
      const res = await upload(app, u, url, png(64 * 1024), 'exact.png')
      t.equal(res.statusCode, 200, 'exactly maxBytes is allowed')
      t.equal(res.json().size, 64 * 1024)
      await app.inject({ method: 'DELETE', url, headers: u.headers })
    }
    {
      const res = await upload(app, u, url, pdf(), 'cat.png', 'image/png')
      t.equal(res.statusCode, 400, 'a PDF declared as image/png')
      t.match(res.json().error, {
        code: 'VALIDATION',
        details: {
          field: 'avatar',
          recoverable: true,
          contentType: 'application/pdf',
          accept: ['image/png', 'image/jpeg']
        }
      })
      await assertNothingStored(t, ctx, id, 'wrong magic bytes')
    }
    {
      const res = await upload(app, u, url, Buffer.from('just some text, not an image'), 'fake.png', 'image/png')
      t.equal(res.statusCode, 400, 'text declared as image/png: no PNG magic, so not a PNG')
      t.match(res.json().error, { details: { contentType: 'application/octet-stream', recoverable: true } })
      await assertNothingStored(t, ctx, id, 'declared type lie')
    }
    {
      const res = await upload(app, u, `/api/v1/contacts/${id}/contract`, jpeg(), 'contract.pdf', 'application/pdf')
      t.equal(res.statusCode, 400, 'a JPEG named .pdf for a PDF-only field')
      t.match(res.json().error.details, { contentType: 'image/jpeg' })
      await assertNothingStored(t, ctx, id, 'jpeg as pdf')
    }
  })
}

t.test('the upload form: exactly one file part named "file", multipart only', async (t) => {
  const ctx = await buildApp(t)
  const { app } = ctx
  const u = makeUser()
  const id = await createRecord(app, u)
  const url = `/api/v1/contacts/${id}/avatar`
  const post = async (form: {
    payload: Buffer
    headers: Record<string, string>
  }): Promise<Awaited<ReturnType<typeof app.inject>>> =>
    await app.inject({ method: 'POST', url, headers: { ...u.headers, ...form.headers }, payload: form.payload })
  const cases: Array<[string, { payload: Buffer; headers: Record<string, string> }, RegExp]> = [
    ['no file part (a text field only)', multipart([{ name: 'note', content: 'hello' }]), /no file part/],
    ['an empty form', multipart([]), /no file part/],
    [
      'two file parts',
      multipart([
        { name: 'file', filename: 'a.png', content: png(200) },
        { name: 'file', filename: 'b.png', content: png(200) }
      ]),
      /exactly one file part/
    ],
    [
      'a file part and another file part under another name',
      multipart([
        { name: 'file', filename: 'a.png', content: png(200) },
        { name: 'other', filename: 'b.png', content: png(200) }
      ]),
      /exactly one file part/
    ],
    [
      'a file part not named "file"',
      multipart([{ name: 'avatar', filename: 'a.png', content: png(200) }]),
      /named "file"/
    ],
    [
      'seventeen text fields before the file (16 are allowed)',
      multipart([
        ...Array.from({ length: 17 }, (_, i) => ({ name: `note${i}`, content: 'x' })),
        { name: 'file', filename: 'a.png', content: png(200) }
      ]),
      /too many form parts/
    ],
    [
      'a field named __proto__',
      multipart([
        { name: '__proto__', content: 'x' },
        { name: 'file', filename: 'a.png', content: png(200) }
      ]),
      /^malformed multipart body: /
    ],
    [
      'a JSON body',
      { payload: Buffer.from('{"file":"x"}'), headers: { 'content-type': 'application/json' } },
      /multipart\/form-data/
    ],
    [
      'a truncated form',
      {
        ...multipart([{ name: 'file', filename: 'a.png', content: png(200) }]),
        payload: multipart([{ name: 'file', filename: 'a.png', content: png(5000) }]).payload.subarray(0, 3000)
      },
      /malformed|no file part|Unexpected end/
    ]
  ]
  for (const [what, form, message] of cases) {
    const res = await post(form)
    t.equal(res.statusCode, 400, what)
    t.equal(res.json().error.code, 'VALIDATION', `${what}: VALIDATION`)
    t.match(res.json().error.message, message, `${what}: says what is wrong`)
    await assertNothingStored(t, ctx, id, what)
  }
  {
    const res = await post(
      multipart([
        { name: 'note', content: 'kept aside' },
        { name: 'file', filename: 'a.png', content: png(300) },
        { name: 'after', content: 'ignored' }
      ])
    )
    t.equal(res.statusCode, 200, 'text fields around the file part are ignored')
  }
})

t.test('a field that is not a file field is 400; the API says so too', async (t) => {
  const { app } = await buildApp(t)
  const u = makeUser()
  const id = await createRecord(app, u)
  for (const method of ['POST', 'GET', 'DELETE'] as const) {
    const res = await app.inject({ method, url: `/api/v1/contacts/${id}/name`, headers: u.headers })
    t.equal(res.statusCode, 400, `${method} /contacts/:id/name`)
    t.match(res.json().error, {
      code: 'VALIDATION',
      details: { field: 'name' },
      message: /not a file field.*avatar, contract, badge/
    })
  }
  const ctx = { identity: { kind: 'user' as const, userId: u.userId, roles: ['user'] }, surface: 'mcp' as const }
  await t.rejects(app.svc.files!.fetch(ctx, 'contacts', id, 'name'), { code: 'VALIDATION', details: { field: 'name' } })
  t.same(
    (await app.inject({ method: 'GET', url: '/_describe' }))
      .json()
      .schemas[0].endpoints.rest.filter((e: { path: string }) => e.path.includes(':field')),
    [],
    'the catch-all is not advertised'
  )
})

t.test('hostile file names are stored safely and served with a safe disposition', async (t) => {
  const { app, blobs } = await buildApp(t)
  const u = makeUser()
  const id = await createRecord(app, u)
  const url = `/api/v1/contacts/${id}/avatar`
  const long = `${'a'.repeat(1000)}.png`
  const cases: Array<[string, string]> = [
    ['../../../../etc/passwd.png', 'passwd.png'],
    ['..\\..\\windows\\evil.png', 'evil.png'],
    ['a\u0000b.png', 'ab.png'],
    ['..', 'file'],
    ['\u202Egnp.exe', 'gnp.exe'],
    [long, 'a'.repeat(255)]
  ]
  for (const [name, stored] of cases) {
    const res = await upload(app, u, url, png(300), name)
    t.equal(res.statusCode, 200, `name ${JSON.stringify(name.slice(0, 30))}`)
    t.equal(
      res.json().originalName,
      stored,
      'stored as its last segment, without control characters, at most 255 characters'
    )
    t.match(
      res.json().key,
      new RegExp(`^${u.userId}/contacts/avatar/${id}-[0-9a-f]{12}\\.png$`),
      'the key never takes anything from the name'
    )
  }
  t.equal((await blobs()).length, 1, 'one blob, inside the uploads dir')
  {
    const res = await upload(app, u, url, png(300), '履歴書 ✓.png')
    t.equal(res.json().originalName, '履歴書 ✓.png', 'UTF-8 names survive')
    const served = await app.inject({ method: 'GET', url: new URL(res.json().url).pathname })
    t.equal(
      served.headers['content-disposition'],
      'inline; filename="??? ?.png"; filename*=UTF-8\'\'%E5%B1%A5%E6%AD%B4%E6%9B%B8%20%E2%9C%93.png',
      'RFC 6266 with an RFC 5987 UTF-8 name'
    )
    const latin = await upload(app, u, url, png(300), 'résumé.png')
    const again = await app.inject({ method: 'GET', url: new URL(latin.json().url).pathname })
    t.equal(
      again.headers['content-disposition'],
      'inline; filename="résumé.png"',
      'an ISO-8859-1 name needs no extended form'
    )
  }
})
