import t from 'tap'
import { createServer } from 'node:http'
import { once } from 'node:events'
import { MongoClient } from 'mongodb'
import { BenchProcesses, benchSettings, compareLoads, cpuFrom, describeRun, median } from '../src/bench.js'

t.test('settings come from the environment, with defaults', async (t) => {
  t.same(benchSettings({}), { seconds: 5, connections: 10, rounds: 3 })
  t.same(benchSettings({ BENCH_SECONDS: '1', BENCH_CONNECTIONS: '2', BENCH_ROUNDS: '5' }), {
    seconds: 1,
    connections: 2,
    rounds: 5
  })
  t.equal(
    describeRun('x', { seconds: 1, connections: 2, rounds: 3 }),
    'database: x; 2 connections, 1s per run, median of 3 alternating rounds'
  )
  t.equal(median([3, 1, 2]), 2)
  t.equal(median([4, 1, 3, 2]), 2.5)
})

t.test(
  "compareLoads measures each load, alternating, with the server's CPU per request; an error answer fails the run",
  async (t) => {
    const hits: string[] = []
    const server = createServer((req, res) => {
      hits.push(req.url ?? '')
      if (req.url === '/cpu') return res.end(JSON.stringify(process.cpuUsage()))
      res.statusCode = req.url === '/missing' ? 404 : 200
      res.end(req.method === 'POST' ? 'posted' : 'ok')
    })
    server.listen(0, '127.0.0.1')
    await once(server, 'listening')
    t.teardown(() => {
      server.close()
    })
    const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`
    const settings = { seconds: 1, connections: 2, rounds: 2 }
    const [a, b] = await compareLoads(
      [
        { label: 'a', url: `${base}/a`, dbCpu: cpuFrom(`${base}/cpu`) },
        { label: 'b', url: `${base}/b`, method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } }
      ],
      cpuFrom(`${base}/cpu`),
      settings
    )
    t.equal(a.label, 'a')
    t.equal(b.label, 'b')
    t.ok(a.rps > 0 && b.rps > 0, 'requests per second measured')
    t.ok(Number.isFinite(a.cpuUs) && a.cpuUs >= 0, 'server CPU per request measured')
    t.ok(Number.isFinite(a.dbCpuUs) && a.dbCpuUs >= 0, "the database's CPU per request measured where asked")
    t.ok(Number.isNaN(b.dbCpuUs), 'no database CPU figure where none was asked')
    const sequence = hits
      .filter((u) => u !== '/cpu')
      .reduce<string[]>((runs, u) => (runs.at(-1) === u ? runs : [...runs, u]), [])
    // warm-up a b, round one a b, round two b a (the two b runs meet, so they read as one)
    t.same(sequence, ['/a', '/b', '/a', '/b', '/a'], 'warm-up, then rounds in alternating order')
    const [c] = await compareLoads([{ label: 'c', url: `${base}/c` }], undefined, {
      seconds: 1,
      connections: 1,
      rounds: 1
    })
    t.ok(Number.isNaN(c.cpuUs), 'no CPU figure without a CPU endpoint')
    await t.rejects(
      compareLoads([{ label: 'missing', url: `${base}/missing` }], undefined, settings),
      /missing: \d+ errors \/ non-2xx/
    )
    hits.length = 0
    await compareLoads(
      [{ label: 'cycled', url: `${base}/x`, method: 'PUT', body: '{}', paths: ['/p1', '/p2', '/p3'] }],
      undefined,
      { seconds: 1, connections: 1, rounds: 1 }
    )
    // (late answers of the failed run above may still arrive: only this run's paths are compared)
    t.same(
      new Set(hits.filter((u) => u !== '/missing')),
      new Set(['/p1', '/p2', '/p3']),
      "`paths` are cycled request by request, never `url`'s own path"
    )
  }
)

t.test("BenchProcesses: a script's first line as JSON, a database, and everything stopped", async (t) => {
  const processes = new BenchProcesses()
  t.teardown(() => {
    processes.stop()
  })
  t.same(await processes.script(new URL('./fixtures/bench-answer.ts', import.meta.url), ['x', 'y']), {
    args: ['x', 'y']
  })
  await t.rejects(
    processes.script(new URL('./fixtures/bench-answer.ts', import.meta.url), ['exit']),
    /exited with 3 before answering/
  )
  const saved = process.env.MONGODB_URI
  delete process.env.MONGODB_URI
  t.teardown(() => {
    // Restored either way: the tests after this one in the process (its share) read it.
    if (saved === undefined) delete process.env.MONGODB_URI
    else process.env.MONGODB_URI = saved
  })
  const db = await processes.database('bench_db')
  t.equal(db.label, '@svc/devdb (child process)')
  t.match(db.uri, /^mongodb:\/\/127\.0\.0\.1:\d+\/bench_db$/)
  const client = await new MongoClient(db.uri, { serverSelectionTimeoutMS: 5000 }).connect()
  t.equal((await client.db().command({ ping: 1 })).ok, 1)
  await client.close()
  process.env.MONGODB_URI = 'mongodb://example.test:27017/x'
  t.same(await processes.database('ignored'), { uri: 'mongodb://example.test:27017/x', label: 'MONGODB_URI' })
  processes.stop()
  await t.rejects(client.db().command({ ping: 1 }), 'the client was closed; the children are gone with stop()')
})
