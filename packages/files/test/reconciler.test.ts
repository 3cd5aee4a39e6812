import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { ObjectId } from 'mongodb'
import t from 'tap'
import { buildApp, createRecord, makeUser, upload, type FilesApp, type Storage } from './helper.js'
import { png } from './fixtures/content.js'

const HOUR = 60 * 60 * 1000

/** Writes a blob behind the plugin's back, on the backend under test. */
async function plant (ctx: FilesApp, storage: Storage, key: string): Promise<void> {
  if (storage === 's3') return await ctx.s3!.put(key, Buffer.from('orphan'))
  const file = join(ctx.uploadsDir, key)
  mkdirSync(dirname(file), { recursive: true })
  writeFileSync(file, 'orphan')
}

for (const storage of ['local', 's3'] as Storage[]) {
  t.test(`${storage}: the reconciler removes old blobs no record names, and nothing else`, async (t) => {
    const clock = { now: new Date() }
    const ctx = await buildApp(t, { storage, files: { now: () => clock.now, orphanGraceMs: HOUR } })
    const { app, blobs } = ctx
    const u = makeUser()
    const live = await createRecord(app, u)
    const tombstoned = await createRecord(app, u)
    const named = (await upload(app, u, `/api/v1/contacts/${live}/avatar`, png(300))).json().key
    const kept = (await upload(app, u, `/api/v1/contacts/${tombstoned}/avatar`, png(300))).json().key
    await app.inject({ method: 'DELETE', url: `/api/v1/contacts/${tombstoned}`, headers: u.headers })
    const orphans = [
      `${u.userId}/contacts/avatar/${live}-aaaaaaaaaaaa.png`, // a crash between storing and recording a replacement
      `${u.userId}/contacts/contract/${new ObjectId().toHexString()}-bbbbbbbbbbbb.pdf` // its record is gone
    ]
    const foreign = ['notes/readme.txt', `${u.userId}/unknown/avatar/${live}-cccccccccccc.png`]
    for (const key of [...orphans, ...foreign]) await plant(ctx, storage, key)
    if (storage === 'local') writeFileSync(join(ctx.uploadsDir, '.incoming', 'interrupted-upload'), 'partial')

    t.same(
      await app.svc.files!.reconcile(),
      { removed: 0 },
      'within the grace period nothing is touched (uploads in flight)'
    )
    t.equal((await blobs()).length, 2 + orphans.length + foreign.length + (storage === 'local' ? 1 : 0))

    clock.now = new Date(Date.now() + 2 * HOUR)
    const { removed } = await app.svc.files!.reconcile()
    t.equal(removed, orphans.length + (storage === 'local' ? 1 : 0), 'orphans (and a stale temp file) removed')
    t.same(
      await blobs(),
      [named, kept, ...foreign].sort(),
      "named blobs, a tombstone's blob and keys that are not ours stay"
    )
    t.same(await app.svc.files!.reconcile(), { removed: 0 }, 'a second pass finds nothing')
  })
}

t.test('the reconciler runs on its timer and stops on close', async (t) => {
  const clock = { now: new Date(Date.now() + 2 * HOUR) }
  const ctx = await buildApp(t, { files: { now: () => clock.now, orphanGraceMs: HOUR, reconcileIntervalMs: 20 } })
  const u = makeUser()
  await plant(ctx, 'local', `${u.userId}/contacts/avatar/${new ObjectId().toHexString()}-dddddddddddd.png`)
  for (let i = 0; i < 250 && (await ctx.blobs()).length > 0; i++) {
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  t.same(await ctx.blobs(), [], 'the timer removed the orphan')
  await ctx.app.close()
})

t.test('orphans past one batch (500 keys are checked per query) are all removed; a named blob stays', async (t) => {
  const clock = { now: new Date() }
  const ctx = await buildApp(t, { files: { now: () => clock.now, orphanGraceMs: HOUR } })
  const u = makeUser()
  const id = await createRecord(ctx.app, u)
  const named = (await upload(ctx.app, u, `/api/v1/contacts/${id}/avatar`, png(300))).json().key
  const orphans = 1001
  for (let i = 0; i < orphans; i++) {
    await plant(
      ctx,
      'local',
      `${u.userId}/contacts/avatar/${new ObjectId().toHexString()}-${i.toString(16).padStart(12, '0')}.png`
    )
  }
  clock.now = new Date(Date.now() + 2 * HOUR)
  t.same(
    await ctx.app.svc.files!.reconcile(),
    { removed: orphans },
    'three batches: 500, 500 and the last two, one of them named'
  )
  t.same(await ctx.blobs(), [named])
})
