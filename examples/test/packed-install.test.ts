import t from 'tap'
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { EXAMPLES_DIR, REPO_ROOT, run } from './helpers/process.js'
import { fileClaims } from './helpers/readme-blocks.js'
import { LISTENING, exerciseSnippetApp } from './helpers/todos-flow.js'
import { exec, missingEntryPoints, workspacePackages } from './helpers/workspace.js'

// The outside path, as a user takes it: the publishable packages packed to tarballs (the README's
// `pack:all` command), installed with npm into a folder that knows nothing of the workspace, and
// the README's "add svc to an existing Fastify app" snippet run there with plain node against
// `npx svc-devdb`.

/** npm must not see pnpm's settings of the run that started this test. */
function cleanEnv (): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const [k, v] of Object.entries(process.env)) {
    if (!/^(npm_|pnpm_|NODE_OPTIONS$)/i.test(k)) env[k] = v
  }
  return env
}

// npm installs every publishable package's dependencies from the registry (a fresh CI machine has
// no npm cache): minutes, not seconds, so this file gets more than the suite's 300 s per file.
t.setTimeout(900_000)

t.test('packed tarballs install with npm and run the README snippet with plain node', async (t) => {
  const publishable = (await workspacePackages(REPO_ROOT)).filter((p) => !p.private)
  t.ok(
    publishable.some((p) => p.name === '@svc/core') && publishable.some((p) => p.name === '@svc/devdb'),
    `publishable: ${publishable.map((p) => p.name).join(', ')}`
  )
  const unbuilt = publishable.filter((p) => missingEntryPoints(p.path).length > 0)
  t.same(
    unbuilt.map((p) => `${p.name}: ${missingEntryPoints(p.path).join(', ')}`),
    [],
    'every package is built (npx -y pnpm@10 build)'
  )
  if (unbuilt.length > 0) return

  const dir = mkdtempSync(join(tmpdir(), 'svc-outside-'))
  t.teardown(() => {
    rmSync(dir, { recursive: true, force: true })
  })
  const tarballs = join(dir, 'tarballs')
  const project = join(dir, 'project')
  // The README's command (`pnpm pack:all` = build + this script), into a folder of our own.
  await exec(process.execPath, [join(REPO_ROOT, 'scripts', 'pack-packages.mjs'), tarballs], { cwd: REPO_ROOT })
  const packed = readdirSync(tarballs).filter((f) => f.endsWith('.tgz'))
  t.equal(packed.length, publishable.length, `one tarball per package: ${packed.join(', ')}`)

  cpSync(join(EXAMPLES_DIR, 'schema'), join(project, 'schema'), { recursive: true })
  writeFileSync(
    join(project, 'package.json'),
    JSON.stringify({ name: 'existing-fastify-app', private: true, type: 'module' }, null, 2)
  )
  const env = cleanEnv()
  await exec(
    'npm',
    [
      'install',
      '--no-audit',
      '--no-fund',
      '--prefer-offline',
      '--loglevel=error',
      ...packed.map((f) => join(tarballs, f)),
      'fastify',
      'mongodb'
    ],
    { cwd: project, env }
  )

  for (const pkg of publishable) {
    const installed = join(project, 'node_modules', ...pkg.name.split('/'))
    t.same(missingEntryPoints(installed), [], `${pkg.name}: every exports/bin target is in the tarball`)
  }
  const names = JSON.stringify(publishable.map((p) => p.name))
  const imported = await exec(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `for (const n of ${names}) { const m = await import(n); console.log(n, Object.keys(m).length > 0) }`
    ],
    { cwd: project, env }
  )
  t.same(
    imported.trim().split('\n').sort(),
    publishable.map((p) => `${p.name} true`).sort(),
    'each package imports with plain node'
  )

  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8')
  const snippet = fileClaims(readme, 'README.md').find((c) => c.path === 'examples/app.mjs')
  t.ok(snippet, 'the README shows examples/app.mjs')
  if (snippet == null) return
  writeFileSync(join(project, 'app.mjs'), `${snippet.body}\n`)
  t.notOk(existsSync(join(project, 'node_modules', '.pnpm')), 'an npm install, not a pnpm one')

  const devdb = run(t, 'npx', ['svc-devdb', '--port', '0'], { cwd: project, env, detached: true })
  const [uri] = await devdb.waitFor(/mongodb:\/\/127\.0\.0\.1:\d+\//, 60_000)
  const app = run(t, process.execPath, ['app.mjs'], {
    cwd: project,
    env: { ...env, MONGODB_URI: `${uri}outside`, JWT_SECRET: 'outside-the-workspace-secret-0123456789', PORT: '0' }
  })
  const [, url] = await app.waitFor(LISTENING, 60_000)
  await exerciseSnippetApp(t, url)
})
