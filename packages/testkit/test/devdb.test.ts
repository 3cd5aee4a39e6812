import t from 'tap'
import { mkdirSync, mkdtempSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { MongoClient } from 'mongodb'
import { buildIsFresh, startEmbeddedDevDb } from '../src/devdb.js'

t.test('a build is fresh only when dist/ is at least as new as every source file', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'svc-fresh-'))
  mkdirSync(join(root, 'src', 'deep'), { recursive: true })
  writeFileSync(join(root, 'src', 'deep', 'a.ts'), '')
  t.equal(buildIsFresh(root), false, 'never built')
  mkdirSync(join(root, 'dist'))
  writeFileSync(join(root, 'dist', 'index.js'), '')
  const at = (path: string, seconds: number): void => {
    utimesSync(path, seconds, seconds)
  }
  at(join(root, 'src', 'deep', 'a.ts'), 1_000)
  at(join(root, 'dist', 'index.js'), 2_000)
  t.equal(buildIsFresh(root), true, 'built after the last edit')
  at(join(root, 'src', 'deep', 'a.ts'), 3_000)
  t.equal(buildIsFresh(root), false, 'a nested source edited after the build')
})

t.test('the embedded devdb answers the driver and stops', async (t) => {
  const devdb = await startEmbeddedDevDb()
  const client = await new MongoClient(devdb.uri, { serverSelectionTimeoutMS: 5000 }).connect()
  const res = await client.db('admin').command({ ping: 1 })
  t.equal(res.ok, 1, 'ping')
  await client.close()
  await devdb.stop()
  const after = new MongoClient(devdb.uri, { serverSelectionTimeoutMS: 500 })
  await t.rejects(after.connect(), 'nothing listens after stop()')
  await after.close()
})
