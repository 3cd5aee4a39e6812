import { spawn, spawnSync } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import Fastify from 'fastify'
import t from 'tap'
import { WORKER_HEADER, exposeWorkerId, workerServerOptions } from '../src/cluster/worker-id.js'
import { pidFilePath, readPrimaryPid, writePidFile } from '../src/cluster/pid-file.js'
import { CLUSTER_PROTOCOL, ProtocolMismatchError, UNVERSIONED_HELLO, helloProtocol } from '../src/cluster/messages.js'
import { reload } from '../src/commands/reload.js'
import { loadConfig } from '../src/config.js'
import { workspace } from './fixtures/workspace.js'

// Issue 27: the in-process parts of SVC_WORKERS (cluster.test.ts runs the real cluster).
const base = { NODE_ENV: 'test', JWT_SECRET: 'units-secret-0123456789abcdef0123' }

t.test('SVC_WORKERS: a count, auto, or a problem', async (t) => {
  t.equal(loadConfig(base).config?.workers, 1, 'unset: one process')
  t.equal(loadConfig({ ...base, SVC_WORKERS: '3' }).config?.workers, 3)
  t.equal(loadConfig({ ...base, SVC_WORKERS: 'auto' }).config?.workers, availableParallelism(), 'auto: the cores')
  for (const bad of ['0', '65', 'two', '-1']) {
    const { config, problems } = loadConfig({ ...base, SVC_WORKERS: bad })
    t.equal(config, null, `SVC_WORKERS=${bad} refused`)
    t.match(problems, [/SVC_WORKERS must be a number from 1 to 64 or "auto"/])
  }
  t.equal(loadConfig({ ...base, SVC_WORKER_ID: '4' }).config?.workerId, '4', 'the id the primary gives a worker')
})

t.test('x-svc-worker names the worker only when there are several', async (t) => {
  for (const id of ['7', undefined]) {
    const app = Fastify()
    exposeWorkerId(app, id)
    app.get('/', async () => ({ ok: true }))
    const res = await app.inject({ method: 'GET', url: '/' })
    t.equal(res.headers[WORKER_HEADER], id, `worker id ${String(id)}`)
    await app.close()
  }
})

t.test('a worker answers the connections it is handed while it drains', async (t) => {
  t.same(workerServerOptions('2'), { return503OnClosing: false })
  t.same(workerServerOptions(undefined), {}, "a single process keeps Fastify's 503 while closing")
})

t.test('pid file and svc reload', async (t) => {
  const { dataDir } = workspace()
  t.equal(await readPrimaryPid(dataDir), null, 'no file: no primary')
  await t.rejects(reload({ DATA_DIR: dataDir }), {
    message: /no running svc primary found \(no live pid in .*svc-primary\.pid/
  })

  const remove = await writePidFile(dataDir)
  t.equal(await readPrimaryPid(dataDir), process.pid, 'the live pid written')
  await remove()
  t.equal(await readPrimaryPid(dataDir), null, 'removed with the primary')

  // A stand-in primary: reload must signal the pid in the file with SIGHUP.
  const standIn = spawn(process.execPath, [
    '-e',
    "process.on('SIGHUP', () => { console.log('hup'); process.exit(0) }); console.log('ready'); setInterval(() => {}, 1000)"
  ])
  t.teardown(() => {
    standIn.kill('SIGKILL')
  })
  let out = ''
  await new Promise<void>((resolve) =>
    standIn.stdout.on('data', (d: Buffer) => {
      out += d.toString()
      if (out.includes('ready')) resolve()
    })
  )
  writeFileSync(pidFilePath(dataDir), `${standIn.pid}\n`)
  const exited = new Promise((resolve) => standIn.on('exit', resolve))
  t.equal(await reload({ DATA_DIR: dataDir }), standIn.pid, 'reload signals the pid of the file')
  t.equal(await exited, 0)
  t.match(out, 'hup', 'the primary receives SIGHUP')

  mkdirSync(dataDir, { recursive: true })
  writeFileSync(pidFilePath(dataDir), 'not-a-pid\n')
  t.equal(await readPrimaryPid(dataDir), null, 'a malformed file names no primary')
  const gone = spawnSync(process.execPath, ['-e', '0']).pid
  writeFileSync(pidFilePath(dataDir), `${gone}\n`)
  t.equal(await readPrimaryPid(dataDir), null, 'a stale file (the process is gone) names no primary')
})

t.test("a worker's hello names its cluster protocol; a mismatch says which side is which", async (t) => {
  t.equal(helloProtocol({ svc: 'loaded', protocol: CLUSTER_PROTOCOL }), CLUSTER_PROTOCOL)
  t.equal(helloProtocol({ svc: 'loaded', protocol: 7 }), 7)
  t.equal(helloProtocol(UNVERSIONED_HELLO), null, 'the bare hello of the releases before versioning')
  t.equal(helloProtocol({ svc: 'loaded' }), null)
  for (const other of [null, 'svc:drain', { svc: 'shared-state', calls: [] }, 42]) {
    t.equal(helloProtocol(other), undefined, `${JSON.stringify(other)} is no hello`)
  }
  t.match(new ProtocolMismatchError('worker', 2), {
    theirs: 2,
    message: `the new worker speaks protocol 2, this primary speaks protocol ${CLUSTER_PROTOCOL}: svc on disk is not the svc this primary started with; restart it (SIGTERM, then start) to upgrade`
  })
  t.match(new ProtocolMismatchError('primary', null), {
    theirs: null,
    message:
      /^this worker speaks protocol \d+, its primary an unversioned protocol \(an svc release before versioning\)/
  })
})
