import { createHmac } from 'node:crypto'
import { existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { getTestDb, signToken } from '@svc/testkit'
import { buildServer } from '../src/build-server.js'
import { loadConfig } from '../src/config.js'
import { workspace } from './fixtures/workspace.js'

// PNG signature + IHDR: enough for the type sniffer.
const PNG = Buffer.concat([
  Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108000000003a7e9b55', 'hex'),
  Buffer.alloc(64)
])

t.test('the reference server serves file fields: UPLOADS_DIR, PUBLIC_BASE_URL, FILES_SIGNING_SECRET', async (t) => {
  const ws = workspace()
  writeFileSync(
    join(ws.schemaDir, 'versions', 'v1', 'people.mjs'),
    `export default {
  path: 'people',
  fields: [{ name: 'name', type: String }, { name: 'photo', type: 'File', file: { accept: ['image/png'] } }]
}\n`
  )
  const uploadsDir = join(ws.root, 'files', 'uploads')
  const secret = 'files-signing-secret-of-the-server-0123'
  const { config } = loadConfig({
    NODE_ENV: 'test',
    JWT_SECRET: 'server-test-secret',
    SCHEMA_DIR: ws.schemaDir,
    UPLOADS_DIR: uploadsDir,
    PUBLIC_BASE_URL: 'https://api.example.test',
    FILES_SIGNING_SECRET: secret
  })
  if (config == null) throw new Error('test config invalid')
  const { db } = await getTestDb(t)
  const app = await buildServer(config, { db, logger: false })
  t.teardown(async () => await app.close())
  await app.ready()
  t.ok(existsSync(uploadsDir), 'UPLOADS_DIR is created at start')
  t.equal(app.svc.features.files, true)

  const headers = {
    authorization: `Bearer ${signToken({ user_id: '65f000000000000000000001', email: 'a@example.test', roles: ['user'] }, 'server-test-secret')}`
  }
  const id = (await app.inject({ method: 'POST', url: '/api/v1/people', headers, payload: { name: 'Ada' } })).json()._id
  const boundary = 'svcserverboundary'
  const payload = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="ada.png"\r\nContent-Type: image/png\r\n\r\n`
    ),
    PNG,
    Buffer.from(`\r\n--${boundary}--\r\n`)
  ])
  const up = await app.inject({
    method: 'POST',
    url: `/api/v1/people/${id}/photo`,
    headers: { ...headers, 'content-type': `multipart/form-data; boundary=${boundary}` },
    payload
  })
  t.equal(up.statusCode, 200, up.body)
  t.ok(existsSync(join(uploadsDir, up.json().key)), 'stored under UPLOADS_DIR')
  const { url, key } = (await app.inject({ method: 'GET', url: `/api/v1/people/${id}/photo`, headers })).json()
  const signed = new URL(url)
  t.equal(signed.origin, 'https://api.example.test', 'URLs are built from PUBLIC_BASE_URL')
  const exp = signed.searchParams.get('exp')!
  t.equal(
    signed.searchParams.get('sig'),
    createHmac('sha256', secret)
      .update(`GET\n${key as string}\n${exp}`)
      .digest('base64url'),
    'signed with FILES_SIGNING_SECRET'
  )
  const got = await app.inject({ method: 'GET', url: `${signed.pathname}${signed.search}` })
  t.equal(got.statusCode, 200)
  t.same(got.rawPayload, PNG)
})
