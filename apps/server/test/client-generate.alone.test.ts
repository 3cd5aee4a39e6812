// `svc client generate`: the checked-in examples/client is what the command writes for ./schema
// (CI fails when a schema change was not regenerated), and the command's wiring end to end.
import { execFile } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import t from 'tap'
import { clientGenerate } from '../src/commands/client-generate.js'

t.setTimeout(240_000)
const ROOT = fileURLToPath(new URL('../../../', import.meta.url))
const BIN = fileURLToPath(new URL('../bin/svc.js', import.meta.url))
const ENV = {
  NODE_ENV: 'test',
  JWT_SECRET: 'client-generate-secret-0123456789abcdef',
  SCHEMA_DIR: join(ROOT, 'schema')
}

t.test(
  'examples/client is current (regenerate: node apps/server/bin/svc.js client generate --out examples/client)',
  async (t) => {
    const out = mkdtempSync(join(tmpdir(), 'svc-client-'))
    const [file] = await clientGenerate({ out }, ENV)
    t.equal(file, join(out, 'index.ts'))
    const current = readFileSync(file, 'utf8')
    t.equal(
      current,
      readFileSync(join(ROOT, 'examples', 'client', 'index.ts'), 'utf8'),
      'examples/client/index.ts matches the schemas in ./schema'
    )
    const [withBase] = await clientGenerate({ out: join(out, 'based'), baseUrl: 'http://127.0.0.1:3000' }, ENV)
    const added = readFileSync(withBase, 'utf8')
      .split('\n')
      .filter((l) => !current.includes(l))
    t.same(
      added,
      [
        "export const DEFAULT_BASE_URL = 'http://127.0.0.1:3000'",
        "export function createClient (options: Omit<ClientOptions, 'baseUrl'> & { baseUrl?: string }): Api {",
        '  return createBaseClient({ ...options, baseUrl: options.baseUrl ?? DEFAULT_BASE_URL }, RESOURCES) as unknown as Api'
      ],
      '--base-url only adds the default'
    )
  }
)

t.test('an invalid environment is refused before anything is written', async (t) => {
  const out = join(mkdtempSync(join(tmpdir(), 'svc-client-')), 'never')
  await t.rejects(
    clientGenerate({ out }, { ...ENV, ACCESS_TOKEN_TTL: '5h' }),
    /invalid configuration \(1 problem\):\n {2}- ACCESS_TOKEN_TTL/
  )
  await t.rejects(clientGenerate({ out }, { ...ENV, SCHEMA_DIR: join(ROOT, 'no-such-dir') }), /no-such-dir/)
  await t.rejects(clientGenerate({ out, apiVersion: 'v9' }, ENV), /no schema of version 'v9'/)
  t.notOk(existsSync(out), 'no output directory was created')
})

t.test('the CLI writes the client with a baked-in base URL and prints the file', async (t) => {
  const out = join(mkdtempSync(join(tmpdir(), 'svc-client-')), 'client')
  const env: NodeJS.ProcessEnv = { ...process.env, ...ENV, _TAPJS_PROCESSINFO_COVERAGE_: '0' }
  delete env.MONGODB_URI
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [BIN, 'client', 'generate', '--out', out, '--base-url', 'https://api.example.test'],
    { env }
  )
  t.equal(stdout, `${join(out, 'index.ts')}\n`)
  t.match(readFileSync(join(out, 'index.ts'), 'utf8'), /export const DEFAULT_BASE_URL = 'https:\/\/api\.example\.test'/)
  const bad = await promisify(execFile)(process.execPath, [BIN, 'client', 'generate'], { env }).catch(
    (err: { code: number; stderr: string }) => err
  )
  t.match(bad, { code: 1, stderr: /required option '--out <dir>'/ }, 'missing --out')
})
