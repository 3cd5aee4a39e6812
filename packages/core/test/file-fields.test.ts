import t from 'tap'
import { SchemaError, type RecordEvent, type WriteResult } from '../src/index.js'
import { DEFAULT_FILE_MAX_BYTES, loadRegistry } from '../src/kit.js'
import { buildCoreApp, makeUser } from './helper.js'

// The service half of file fields (`@svc/files` streams the blobs): options at load, refusal in
// JSON bodies, setFile/readFile/checkFileWrite with tenancy, ACL, no hooks, events; purge on hard delete.

const hookCalls: string[] = []
const docs = (extra: Record<string, unknown> = {}): unknown => ({
  path: 'docs',
  softDelete: false,
  fields: [
    { name: 'title', type: String, required: true },
    {
      name: 'scan',
      type: 'File',
      file: { maxBytes: 1024, accept: ['Image/PNG', 'application/*'], storage: 's3', visibility: 'public' }
    },
    { name: 'secret', type: 'File', acl: { read: ['admin'], update: ['admin'] } }
  ],
  hooks: Object.fromEntries(
    ['beforeUpdate', 'afterUpdate'].map((h) => [
      h,
      () => {
        hookCalls.push(h)
      }
    ])
  ),
  ...extra
})

const META = {
  key: 'k/docs/scan/x.png',
  size: 3,
  contentType: 'image/png',
  originalName: 'x.png',
  uploadedAt: new Date('2026-01-02T03:04:05Z')
}

t.test('file options: defaults filled, values checked, File fields top-level and optional', async (t) => {
  const registry = await loadRegistry({ schemas: [docs()] })
  const m = registry.get('v1', 'docs')!
  t.same(
    m.fieldsByPath.get('scan')!.file,
    { maxBytes: 1024, accept: ['image/png', 'application/*'], storage: 's3', visibility: 'public' },
    'accept is lower-cased'
  )
  t.same(
    m.fieldsByPath.get('secret')!.file,
    { maxBytes: DEFAULT_FILE_MAX_BYTES, storage: 'local', visibility: 'private' },
    'spec defaults: 10 MB, local, private, any type'
  )
  t.equal(DEFAULT_FILE_MAX_BYTES, 10 * 1024 * 1024)

  const refused: Array<[unknown, RegExp]> = [
    [{ type: 'File', file: { maxBytes: 0 } }, /fields\.f\.file\.maxBytes/],
    [{ type: 'File', file: { maxBytes: 1.5 } }, /maxBytes/],
    [{ type: 'File', file: { storage: 'gcs' } }, /file\.storage/],
    [{ type: 'File', file: { visibility: 'world' } }, /file\.visibility/],
    [{ type: 'File', file: { accept: [] } }, /file\.accept/],
    [{ type: 'File', file: { accept: ['png'] } }, /file\.accept\[0\]/],
    [{ type: 'File', file: { acept: ['image/png'] } }, /file\.acept.*unknown option/],
    [{ type: 'File', file: 'big' }, /fields\.f\.file/],
    [{ type: 'File', required: true }, /fields\.f\.required/],
    [{ type: 'File', searchable: true }, /searchable/],
    [{ type: { inner: 'File' } }, /top-level/],
    [{ type: String, file: { maxBytes: 1 } }, /applies to type 'File' only/]
  ]
  for (const [field, message] of refused) {
    const err = await loadRegistry({ schemas: [{ path: 'x', fields: [{ name: 'f', ...(field as object) }] }] }).catch(
      (e: unknown) => e
    )
    t.type(err, SchemaError, `${JSON.stringify(field)} refused`)
    t.match((err as Error).message, message)
  }
})

t.test('JSON bodies cannot write a file field, on any write route', async (t) => {
  const app = await buildCoreApp(t, { schemas: [docs()] })
  const u = makeUser()
  const forged = { ...META, uploadedAt: META.uploadedAt.toISOString() }
  {
    const res = await app.inject({
      method: 'POST',
      url: '/api/v1/docs',
      headers: u.headers,
      payload: { title: 'a', scan: forged }
    })
    t.equal(res.statusCode, 400, 'POST with a FileMeta')
    t.match(res.json().error, { code: 'VALIDATION', details: { field: 'scan' } })
  }
  const id = (
    await app.inject({ method: 'POST', url: '/api/v1/docs', headers: u.headers, payload: { title: 'a' } })
  ).json()._id
  for (const [method, url, payload] of [
    ['PUT', `/api/v1/docs/${id}`, { scan: forged }],
    ['PUT', `/api/v1/docs/${id}`, { scan: null }],
    ['PUT', '/api/v1/docs', { filter: {}, record: { scan: forged } }]
  ] as const) {
    const res = await app.inject({ method, url, headers: u.headers, payload })
    t.equal(res.statusCode, 400, `${method} ${url} with scan=${JSON.stringify(payload)}`)
    t.match(res.json().error, { code: 'VALIDATION', details: { field: 'scan' } })
  }
  const service = app.svc.services.get('docs')
  await t.rejects(
    service.create(
      { identity: { kind: 'user', userId: u.userId, roles: ['user'] }, surface: 'mcp' },
      { title: 'b', scan: forged }
    ),
    { code: 'VALIDATION' },
    'other surfaces too'
  )
  t.equal(
    await app.svc.db.collection(service.model.collection).countDocuments({ scan: { $exists: true } }),
    0,
    'nothing stored'
  )
})

t.test('setFile / readFile / checkFileWrite: tenancy, ACL, no hooks, audit-visible events', async (t) => {
  const app = await buildCoreApp(t, { schemas: [docs()] })
  const service = app.svc.services.get('docs')
  const owner = makeUser()
  const other = makeUser()
  const ctx = (userId: string, roles = ['user']): any => ({
    identity: { kind: 'user', userId, roles },
    surface: 'rest'
  })
  const id = (
    await app.inject({ method: 'POST', url: '/api/v1/docs', headers: owner.headers, payload: { title: 'a' } })
  ).json()._id
  const results: WriteResult[] = []
  const events: RecordEvent[] = []
  service.onWrite((r) => {
    results.push(r)
  })
  app.svc.events.on('docs.updated', (e: RecordEvent) => {
    events.push(e)
  })
  hookCalls.length = 0

  t.same(await service.checkFileWrite(ctx(owner.userId), id, 'scan'), { userId: owner.userId })
  t.equal(await service.readFile(ctx(owner.userId), id, 'scan'), null, 'empty field')
  const first = await service.setFile(ctx(owner.userId), id, 'scan', META)
  t.equal(first.previous, null, 'nothing replaced')
  t.match(
    first.record,
    { scan: { key: META.key, uploadedAt: '2026-01-02T03:04:05.000Z' } },
    'the answer is presented JSON'
  )
  t.same(await service.readFile(ctx(owner.userId), id, 'scan'), META, 'stored as BSON (Date)')
  const second = await service.setFile(ctx(owner.userId), id, 'scan', { ...META, key: 'k/docs/scan/y.png' })
  t.same(second.previous, META, 'the replaced FileMeta is answered')
  const cleared = await service.setFile(ctx(owner.userId), id, 'scan', null)
  t.equal(cleared.previous?.key, 'k/docs/scan/y.png')
  t.notOk('scan' in cleared.record, 'cleared')
  t.same(
    await service.setFile(ctx(owner.userId), id, 'scan', null),
    { previous: null, record: cleared.record },
    'clearing an empty field writes nothing'
  )

  t.same(hookCalls, [], 'no beforeUpdate/afterUpdate for file writes')
  t.same(
    results.map((r) => r.action),
    ['updated', 'updated', 'updated'],
    'one write result per change (audit rows), none for the no-op'
  )
  t.match(results[0], { recordId: id, before: { title: 'a' }, after: { scan: { key: META.key } } })
  t.notOk('scan' in results[2].after!, 'after of the clear has no file')
  t.same(
    events.map((e) => e.userId),
    [owner.userId, owner.userId, owner.userId],
    '<path>.updated events for the owner'
  )

  for (const call of [
    async () => await service.checkFileWrite(ctx(other.userId), id, 'scan'),
    async () => await service.readFile(ctx(other.userId), id, 'scan'),
    async () => await service.setFile(ctx(other.userId), id, 'scan', META),
    async () => await service.setFile(ctx(owner.userId), 'not-an-id', 'scan', META)
  ]) {
    await t.rejects(call(), { code: 'NOT_FOUND' }, 'another tenant or a malformed id: 404')
  }
  t.equal(await service.readFile(ctx(owner.userId), id, 'scan'), null, 'the other tenant wrote nothing')

  await t.rejects(
    service.readFile(ctx(owner.userId), id, 'secret'),
    { code: 'FORBIDDEN', details: { field: 'secret' } },
    'unreadable field: 403'
  )
  await t.rejects(
    service.checkFileWrite(ctx(owner.userId), id, 'secret'),
    { code: 'FORBIDDEN' },
    'unwritable field: 403'
  )
  await t.rejects(service.setFile(ctx(owner.userId), id, 'secret', META), { code: 'FORBIDDEN' })
  t.same(
    await service.checkFileWrite(ctx(owner.userId, ['user', 'admin']), id, 'secret'),
    { userId: owner.userId },
    'admin may'
  )
  await t.rejects(
    service.readFile(ctx(owner.userId), id, 'title'),
    { code: 'VALIDATION', details: { field: 'title' } },
    'not a file field: 400'
  )
  await t.rejects(
    service.checkFileWrite(
      { identity: { kind: 'client', userId: null, roles: ['public'], clientId: 'c' }, surface: 'rest' },
      id,
      'scan'
    ),
    { code: 'FORBIDDEN' },
    'api clients never write'
  )
  await t.rejects(service.setFile({ identity: null, surface: 'rest' }, id, 'scan', META), { code: 'UNAUTHENTICATED' })
})

t.test(
  'hard delete hands the removed document to the purge hooks; a failing hook never fails the delete',
  async (t) => {
    const app = await buildCoreApp(t, { schemas: [docs()] })
    const service = app.svc.services.get('docs')
    const u = makeUser()
    const purged: unknown[] = []
    service.onPurge(() => {
      throw new Error('storage down')
    })
    service.onPurge(({ model, docs }) => {
      t.equal(model.path, 'docs')
      purged.push(...docs)
    })
    const id = (
      await app.inject({ method: 'POST', url: '/api/v1/docs', headers: u.headers, payload: { title: 'a' } })
    ).json()._id
    await service.setFile(
      { identity: { kind: 'user', userId: u.userId, roles: ['user'] }, surface: 'rest' },
      id,
      'scan',
      META
    )
    const res = await app.inject({ method: 'DELETE', url: `/api/v1/docs/${id}`, headers: u.headers })
    t.equal(res.statusCode, 200, 'DELETE answers although a hook failed')
    t.equal(purged.length, 1)
    t.match(purged[0], { title: 'a', scan: { key: META.key } }, 'the document as stored')
  }
)

t.test('the manifest describes file options; deriveKey gives per-purpose keys', async (t) => {
  const app = await buildCoreApp(t, { schemas: [docs()] })
  const m = (await app.inject({ method: 'GET', url: '/_describe' })).json()
  t.same(m.schemas[0].fileFields, ['scan', 'secret'])
  t.same(m.schemas[0].fields.find((f: { name: string }) => f.name === 'scan').file, {
    maxBytes: 1024,
    accept: ['image/png', 'application/*'],
    storage: 's3',
    visibility: 'public'
  })
  const a = app.svc.auth.deriveKey('files-signing')
  t.equal(a.length, 32)
  t.same(app.svc.auth.deriveKey('files-signing'), a, 'stable')
  t.notSame(app.svc.auth.deriveKey('other'), a, 'one key per purpose')
  t.notOk(a.toString('latin1').includes('core-test-secret'), 'never the JWT secret itself')
})
