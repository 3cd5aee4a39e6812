import t from 'tap'
import { Readable } from 'node:stream'
import { type RequestContext } from '@svc/core'
import { ApiClientStore } from '@svc/core/kit'
import { buildApp, createRecord, download, makeUser, upload, type Storage } from './helper.js'
import { fileForm } from './fixtures/multipart.js'
import { png } from './fixtures/content.js'

for (const storage of ['local', 's3'] as Storage[]) {
  t.test(`${storage}: another tenant's record id is 404 on every route, and their blob is untouched`, async (t) => {
    const { app, blobs } = await buildApp(t, { storage })
    const owner = makeUser()
    const intruder = makeUser()
    const id = await createRecord(app, owner)
    const image = png(1000)
    const stored = (await upload(app, owner, `/api/v1/contacts/${id}/avatar`, image)).json()
    const url = `/api/v1/contacts/${id}/avatar`
    {
      const res = await upload(app, intruder, url, png(500))
      t.equal(res.statusCode, 404, 'upload onto a borrowed id')
      t.equal(res.json().error.code, 'NOT_FOUND')
    }
    for (const method of ['GET', 'DELETE'] as const) {
      const res = await app.inject({ method, url, headers: intruder.headers })
      t.equal(res.statusCode, 404, `${method} a borrowed id`)
    }
    t.same(await blobs(), [stored.key], "only the owner's blob exists")
    const mine = await app.inject({ method: 'GET', url, headers: owner.headers })
    t.same({ ...mine.json(), url: undefined }, { ...stored, url: undefined }, "the owner's metadata is unchanged")
    t.same((await download(app, mine.json().url)).body, image, 'and so is the blob')
    for (const bad of ['not-an-id', '65f0000000000000000000ff']) {
      const res = await upload(app, owner, `/api/v1/contacts/${bad}/avatar`, png(500))
      t.equal(res.statusCode, 404, `upload to ${bad}`)
    }
    t.equal((await blobs()).length, 1, 'refused uploads stored nothing')
  })
}

t.test('field ACL: 403 on fetch without read, on upload/delete without update', async (t) => {
  const { app, blobs } = await buildApp(t)
  const user = makeUser()
  const admin = makeUser({ user_id: user.userId, roles: ['user', 'admin'] })
  const id = await createRecord(app, user)
  const url = `/api/v1/contacts/${id}/badge`
  {
    const res = await upload(app, user, url, png(400))
    t.equal(res.statusCode, 403, 'upload without the update role')
    t.match(res.json().error, { code: 'FORBIDDEN', details: { field: 'badge' } })
    t.same(await blobs(), [], 'nothing stored')
  }
  t.equal((await upload(app, admin, url, png(400))).statusCode, 200, 'admin uploads')
  for (const method of ['GET', 'DELETE'] as const) {
    const res = await app.inject({ method, url, headers: user.headers })
    t.equal(res.statusCode, 403, `${method} without the role`)
    t.match(res.json().error, { code: 'FORBIDDEN', details: { field: 'badge' } })
  }
  const record = (await app.inject({ method: 'GET', url: `/api/v1/contacts/${id}`, headers: user.headers })).json()
  t.notOk('badge' in record, 'the record read strips the unreadable FileMeta')
  t.equal((await blobs()).length, 1, 'the blob survived the refused delete')
  t.equal((await app.inject({ method: 'GET', url, headers: admin.headers })).statusCode, 200, 'admin reads')
  t.equal((await app.inject({ method: 'DELETE', url, headers: admin.headers })).statusCode, 200, 'admin deletes')
})

t.test('api clients (X-Client-Id) cannot upload or delete; anonymous callers get 401', async (t) => {
  const { app, db, blobs } = await buildApp(t)
  const owner = makeUser()
  const id = await createRecord(app, owner)
  await upload(app, owner, `/api/v1/contacts/${id}/avatar`, png(300))
  const { _id: clientId } = await new ApiClientStore(db).create({ role: 'storefront', name: 'shop' })
  const client = { 'x-client-id': clientId }
  {
    const form = fileForm(png(300))
    const res = await app.inject({
      method: 'POST',
      url: `/api/v1/contacts/${id}/avatar`,
      headers: { ...client, ...form.headers },
      payload: form.payload
    })
    t.equal(res.statusCode, 403, 'client upload')
    t.equal(res.json().error.code, 'FORBIDDEN')
  }
  t.equal(
    (await app.inject({ method: 'DELETE', url: `/api/v1/contacts/${id}/avatar`, headers: client })).statusCode,
    403,
    'client delete'
  )
  t.equal(
    (await app.inject({ method: 'GET', url: `/api/v1/contacts/${id}/avatar`, headers: client })).statusCode,
    200,
    'a client may fetch inside its scope (reads are allowed)'
  )
  t.equal((await blobs()).length, 1, 'the blob is still there')
  for (const method of ['POST', 'GET', 'DELETE'] as const) {
    const res = await app.inject({ method, url: `/api/v1/contacts/${id}/avatar` })
    t.equal(res.statusCode, 401, `${method} without credentials`)
  }
  // The files API refuses clients by itself (MCP calls it without the REST hook).
  const ctx: RequestContext = {
    identity: { kind: 'client', userId: null, roles: ['storefront'], clientId },
    surface: 'mcp'
  }
  await t.rejects(
    app.svc.files!.upload(ctx, 'contacts', id, 'avatar', { stream: Readable.from([png(200)]), filename: 'x.png' }),
    { code: 'FORBIDDEN' }
  )
  await t.rejects(app.svc.files!.remove(ctx, 'contacts', id, 'avatar'), { code: 'FORBIDDEN' })
  t.equal((await blobs()).length, 1)
})
