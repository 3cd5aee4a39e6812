import t from 'tap'
import { MongoClient } from 'mongodb'
import { REPO_ROOT, pnpmCommand, run } from './helpers/process.js'

t.test('pnpm --filter @svc/devdb exec svc-devdb starts a database the driver can use', async (t) => {
  const pnpm = pnpmCommand()
  const devdb = run(t, pnpm.command, [...pnpm.args, '--filter', '@svc/devdb', 'exec', 'svc-devdb', '--port', '0'], {
    cwd: REPO_ROOT,
    detached: true
  })
  const [uri] = await devdb.waitFor(/mongodb:\/\/127\.0\.0\.1:\d+\//, 60_000)
  const client = await new MongoClient(uri, { serverSelectionTimeoutMS: 5000 }).connect()
  t.teardown(async () => await client.close())
  const things = client.db('exec_check').collection('things')
  await things.insertOne({ name: 'svc-devdb' })
  t.match(
    await things.findOne({}, { projection: { _id: 0 } }),
    { name: 'svc-devdb' },
    "a round trip through the CLI's server"
  )
  await client.close()
  t.notOk(/command not found/i.test(devdb.output()), "the bin is on pnpm exec's PATH")
})
