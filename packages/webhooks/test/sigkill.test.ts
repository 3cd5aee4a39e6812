import t from 'tap'
import { spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { getTestDb } from '@svc/testkit'
import { DURABLE_MODES, buildApp, eventually, makeUser } from './helper.js'
import { startReceiver } from './fixtures/receiver.js'

// A server process is killed with SIGKILL while creates are in flight, right after the first 201.
// Every create that was answered 201 must reach the receiver once a new process runs, and no
// event may exist for a record that was not written.
for (const mode of DURABLE_MODES) {
  t.test(`${mode.name}: a SIGKILL right after a 201 loses no event`, async (t) => {
    const { db, uri } = await getTestDb(t)
    const rx = await startReceiver(t)
    const user = makeUser()
    const script = fileURLToPath(new URL('./fixtures/server.ts', import.meta.url))
    const child = spawn(process.execPath, ['--conditions=@svc/source', '--import', 'tsx', script, uri], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, _TAPJS_PROCESSINFO_COVERAGE_: '0', TRANSACTIONS: String(mode.name === 'transactions') }
    })
    t.teardown(() => {
      if (child.exitCode === null) child.kill('SIGKILL')
    })
    const line = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout }).once('line', resolve)
      child.once('exit', (code) => reject(new Error(`fixture exited with ${String(code)}`)))
    })
    const base = `http://127.0.0.1:${JSON.parse(line).port as number}`
    const sub = await fetch(`${base}/api/v1/webhooks`, {
      method: 'POST',
      headers: { ...user.headers, 'content-type': 'application/json' },
      body: JSON.stringify({ events: ['contacts.created'], url: rx.url })
    })
    t.equal(sub.status, 201, 'subscribed through the doomed process')

    const answered: string[] = []
    let killed = false
    const exited = new Promise((resolve) => child.once('exit', resolve))
    await Promise.allSettled(
      Array.from({ length: 40 }, async (_, i) => {
        const res = await fetch(`${base}/api/v1/contacts`, {
          method: 'POST',
          headers: { ...user.headers, 'content-type': 'application/json' },
          body: JSON.stringify({ name: `c${i}` })
        })
        if (res.status !== 201) return
        answered.push((await res.json())._id)
        if (!killed) {
          killed = true
          child.kill('SIGKILL')
        }
      })
    )
    await exited
    t.ok(answered.length >= 1, `${answered.length} creates answered 201 before the kill`)

    // A new process: core reconciles the killed writes' intents (once their 1 s lease is over), the worker delivers.
    const { app } = await buildApp(t, { db, core: { intentReconcileMs: 200, transactions: mode.transactions } })
    t.equal(app.svc.transactions, mode.name === 'transactions')
    const written = (
      await db
        .collection('contacts')
        .find({}, { projection: { _id: 1 } })
        .toArray()
    ).map((d) => d._id.toHexString())
    const got = await eventually(async () => {
      const ids = rx.received.map((r) => r.body.recordId)
      return written.every((id) => ids.includes(id)) && ids
    }, 30_000)
    for (const id of answered) t.ok(got.includes(id), `event for answered create ${id}`)
    await new Promise((resolve) => setTimeout(resolve, 500))
    t.same(
      [...new Set(rx.received.map((r) => r.body.recordId))].sort(),
      [...written].sort(),
      'an event for every record written, and only for those'
    )
  })
}
