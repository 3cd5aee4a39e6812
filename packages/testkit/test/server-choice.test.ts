import t, { type Test } from 'tap'
import { createServer, type Server } from 'node:http'
import { once } from 'node:events'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { mkdtempSync } from 'node:fs'
import { chooseServerKind, dockerEndpoint } from '../src/index.js'

/** A local stand-in for the Docker engine's `/_ping`, on a unix socket like the real one. */
async function fakeEngine (t: Test, status: number): Promise<string> {
  const socketPath = join(mkdtempSync(join(tmpdir(), 'svc-docker-')), 'docker.sock')
  const server: Server = createServer((req, res) => {
    res.statusCode = req.url === '/_ping' ? status : 404
    res.end('OK')
  })
  server.listen(socketPath)
  await once(server, 'listening')
  t.teardown(() => {
    server.close()
  })
  return socketPath
}

t.test('MONGODB_URI wins over everything', async (t) => {
  t.equal(
    await chooseServerKind({ MONGODB_URI: 'mongodb://db.example:27017/x', DOCKER_HOST: 'tcp://127.0.0.1:1' }),
    'mongodb-uri'
  )
})

t.test('a Docker engine that answers /_ping selects the container', async (t) => {
  const socketPath = await fakeEngine(t, 200)
  t.equal(await chooseServerKind({ DOCKER_HOST: `unix://${socketPath}` }), 'docker')
  t.equal(
    await chooseServerKind({ DOCKER_HOST: `unix://${socketPath}`, SVC_TEST_DOCKER: '0' }),
    'devdb',
    'SVC_TEST_DOCKER=0 opts out'
  )
})

t.test('an engine that does not answer OK falls back to devdb', async (t) => {
  const socketPath = await fakeEngine(t, 500)
  t.equal(await chooseServerKind({ DOCKER_HOST: `unix://${socketPath}` }), 'devdb', 'ping 500')
  t.equal(await chooseServerKind({ DOCKER_HOST: 'tcp://127.0.0.1:1' }), 'devdb', 'nothing listens')
})

t.test('without Docker the choice costs no I/O wait', async (t) => {
  const started = process.hrtime.bigint()
  const kind = await chooseServerKind({ DOCKER_HOST: 'unix:///nonexistent/docker.sock' })
  const ms = Number(process.hrtime.bigint() - started) / 1e6
  t.equal(kind, 'devdb')
  t.ok(ms < 250, `decided in ${ms.toFixed(1)} ms`)
})

t.test('dockerEndpoint reads DOCKER_HOST or the usual socket files', async (t) => {
  const none = (): boolean => false
  const all = (): boolean => true
  t.same(dockerEndpoint({ DOCKER_HOST: 'tcp://10.0.0.5:2375' }, none), { host: '10.0.0.5', port: 2375 })
  t.same(dockerEndpoint({ DOCKER_HOST: 'unix:///run/x.sock' }, all), { socketPath: '/run/x.sock' })
  t.equal(dockerEndpoint({ DOCKER_HOST: 'unix:///run/x.sock' }, none), null, 'a missing socket file')
  t.equal(dockerEndpoint({ DOCKER_HOST: 'ssh://host' }, all), null, 'unsupported scheme')
  t.same(
    dockerEndpoint({}, (p) => p === '/var/run/docker.sock'),
    { socketPath: '/var/run/docker.sock' }
  )
  t.same(
    dockerEndpoint({ XDG_RUNTIME_DIR: '/run/user/1000' }, (p) => p === '/run/user/1000/docker.sock'),
    { socketPath: '/run/user/1000/docker.sock' }
  )
  t.equal(dockerEndpoint({}, none), null)
})
