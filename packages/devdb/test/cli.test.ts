import t from 'tap'
import { parseArgs } from '../src/cli.js'
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { MongoClient } from 'mongodb'

const bin = fileURLToPath(new URL('../bin/svc-devdb.js', import.meta.url))
// Children record no coverage: tap counted them in some runs only (their sources loaded another
// way), so the package's function coverage moved from run to run.
const env: NodeJS.ProcessEnv = { ...process.env, _TAPJS_PROCESSINFO_COVERAGE_: '0' }
const dir = mkdtempSync(join(tmpdir(), 'devdb-cli-'))
t.teardown(() => {
  rmSync(dir, { recursive: true, force: true })
})

function startCli (): { uri: Promise<string>; exit: Promise<number | null>; kill: (s: NodeJS.Signals) => void } {
  const child = spawn(process.execPath, [bin, '--port', '0', '--dbpath', dir], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env
  })
  let out = ''
  const uri = new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString()
      const line = out.split('\n').find((l) => l.startsWith('mongodb://'))
      if (line !== undefined) resolve(line.trim())
    })
    child.once('exit', () => {
      reject(new Error('exited before printing its URI'))
    })
  })
  const exit = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      resolve(code)
    })
  )
  return {
    uri,
    exit,
    kill: (s) => {
      child.kill(s)
    }
  }
}

t.test('prints its URI, serves the driver, stops on SIGTERM, keeps data', async (t) => {
  const a = startCli()
  const uri = await a.uri
  t.match(uri, /^mongodb:\/\/127\.0\.0\.1:\d+\/$/)
  const c1 = await new MongoClient(uri).connect()
  await c1.db('cli').collection('x').insertOne({ v: 42 })
  await c1.close()
  a.kill('SIGTERM')
  t.equal(await a.exit, 0)
  const b = startCli()
  const c2 = await new MongoClient(await b.uri).connect()
  t.equal((await c2.db('cli').collection('x').findOne({}))?.v, 42)
  await c2.close()
  b.kill('SIGINT')
  t.equal(await b.exit, 0)
})

t.test('rejects unknown options', async (t) => {
  const child = spawn(process.execPath, [bin, '--bogus'], { stdio: ['ignore', 'ignore', 'pipe'], env })
  let err = ''
  child.stderr.on('data', (d: Buffer) => {
    err += d.toString()
  })
  const code = await new Promise((resolve) => child.once('exit', resolve))
  t.equal(code, 2)
  t.match(err, /unknown option --bogus/)
})

t.test('--replSet names the replica set; --standalone turns it off', async (t) => {
  t.same(parseArgs(['--replSet', 'rs9']), { port: 27017, replSet: 'rs9' })
  t.same(parseArgs(['--standalone', '--port=0']), { port: 0, replSet: false })
  t.throws(() => parseArgs(['--replSet']), /--replSet needs a value/)
})
