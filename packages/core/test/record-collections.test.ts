import t from 'tap'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

// Records are read and written only through the resource service. `ResourceService` keeps its
// collection in a `#` field (the compiler stops `service.collection`); this check stops the other
// way round it: opening a collection by a computed name (a schema's `model.collection`) anywhere
// but packages/core/src/service. Plugins' own collections are opened by a literal or a constant.
const root = fileURLToPath(new URL('../../..', import.meta.url))
const OPEN_BY_VARIABLE = /\.collection(?:<[^>]*>)?\(\s*(?![A-Z][A-Z0-9_]*\s*\)|'|")/
const EXEMPT = ['packages/core/src/service/', 'packages/devdb/'] // devdb is the database itself

function sources (dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist') continue
    const p = join(dir, name)
    if (statSync(p).isDirectory()) sources(p, out)
    else if (p.endsWith('.ts') && !p.endsWith('.d.ts')) out.push(p)
  }
  return out
}

t.test('no source outside core/src/service opens a record collection', async (t) => {
  const offenders: string[] = []
  const files = ['packages', 'apps'].flatMap((top) =>
    readdirSync(join(root, top))
      .map((pkg) => join(root, top, pkg, 'src'))
      .filter((src) => {
        try {
          return statSync(src).isDirectory()
        } catch {
          return false
        }
      })
      .flatMap((src) => sources(src))
  )
  for (const file of files) {
    const rel = relative(root, file)
    if (EXEMPT.some((e) => rel.startsWith(e))) continue
    readFileSync(file, 'utf8')
      .split('\n')
      .forEach((line, i) => {
        if (OPEN_BY_VARIABLE.test(line)) offenders.push(`${rel}:${i + 1}: ${line.trim()}`)
      })
  }
  t.ok(files.length > 100, 'the scan saw the monorepo')
  t.same(offenders, [], 'collections opened by a computed name')
})

t.test("the check catches a collection opened by a schema's name", async (t) => {
  t.ok(OPEN_BY_VARIABLE.test('db.collection(service.model.collection).find({})'))
  t.ok(OPEN_BY_VARIABLE.test('db.collection<Doc>(name)'))
  t.notOk(OPEN_BY_VARIABLE.test("db.collection<Doc>('webhook_jobs')"))
  t.notOk(OPEN_BY_VARIABLE.test('db.collection<AuditRow>(AUDIT_COLLECTION)'))
})
