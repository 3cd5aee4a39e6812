import t from 'tap'
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import Fastify from 'fastify'
import svcCore from '@svc/core'
import { getTestDb } from '@svc/testkit'
import { EXAMPLES_DIR, REPO_ROOT } from './helpers/process.js'
import { describeReadme, readmes } from './helpers/readme-blocks.js'

// Every schema a README shows (a ts/js block with a default export holding `path` and `fields`)
// loads with @svc/core as shown. A schema that names other schemas (relations, `reference`) says
// so in the text just before it, and loads next to them: those the same README shows, else the
// shipped CRM schemas, and theirs in turn.

const SHIPPED = join(REPO_ROOT, 'schema', 'versions', 'v1')
const TARGET = /(?:reference|belongsTo|hasMany|hasOne):\s*'([\w-]+)'/g

/** The shipped file of a schema (`notes.mjs`, `deals.ts`…). */
function shipped (name: string): string {
  const file = readdirSync(SHIPPED).find((f) => f.replace(/\.[^.]+$/, '') === name)
  if (file === undefined) throw new Error(`no shipped schema named ${name} in schema/versions/v1`)
  return file
}

interface SchemaBlock {
  where: string
  path: string
  body: string
  /** The paragraph before the block. */
  lead: string
}

function schemaBlocks (): SchemaBlock[] {
  const blocks: SchemaBlock[] = []
  for (const file of readmes(REPO_ROOT)) {
    const text = readFileSync(file, 'utf8')
    for (const m of text.matchAll(/```(?:ts|js)\n([\s\S]*?)```/g)) {
      const body = m[1]
      const path = /^\s*path:\s*'([\w-]+)'/m.exec(body)?.[1]
      if (path === undefined || !/export default/.test(body) || !/fields:\s*\[/.test(body)) continue
      const before = text.slice(0, m.index)
      const para = before.trimEnd()
      const lead = para.slice(para.lastIndexOf('\n\n'))
      blocks.push({ where: `${describeReadme(REPO_ROOT, file)}:${before.split('\n').length}`, path, body, lead })
    }
  }
  return blocks
}

const targets = (source: string, self: string): string[] =>
  [...new Set([...source.matchAll(TARGET)].map((m) => m[1]))].filter((n) => n !== self)

/** A schema named by another: shown in the same README, else the shipped one. */
function companion (name: string, readme: SchemaBlock[]): { file: string; body: string } {
  const shown = readme.find((b) => b.path === name)
  if (shown !== undefined) return { file: `${name}.ts`, body: shown.body }
  const file = shipped(name)
  return { file, body: readFileSync(join(SHIPPED, file), 'utf8') }
}

/** The schemas `names` refer to, and theirs, transitively (`self` excluded). */
function closure (names: string[], self: string, readme: SchemaBlock[]): Array<{ file: string; body: string }> {
  const seen = new Map<string, { file: string; body: string }>()
  const todo = [...names]
  while (todo.length > 0) {
    const name = todo.pop()!
    if (seen.has(name) || name === self) continue
    const c = companion(name, readme)
    seen.set(name, c)
    todo.push(...targets(c.body, name))
  }
  return [...seen.values()]
}

const blocks = schemaBlocks()

t.test('the READMEs show schemas', async (t) => {
  t.ok(
    blocks.some((b) => b.where.startsWith('README.md') && b.path === 'tasks'),
    "the root README's tasks schema"
  )
  t.ok(
    blocks.some((b) => b.where.startsWith('packages/core/README.md')),
    "core's schema example"
  )
})

for (const block of blocks) {
  t.test(`${block.where}: the ${block.path} schema loads as shown`, async (t) => {
    const named = targets(block.body, block.path)
    for (const n of named) t.match(block.lead, new RegExp(`\`${n}\``), `the text before it says it refers to \`${n}\``)
    // Inside this package, so an `import … from '@svc/core'` in the block resolves as in an app.
    const dir = mkdtempSync(join(EXAMPLES_DIR, '.readme-schema-'))
    t.teardown(() => rmSync(dir, { recursive: true, force: true }))
    const versions = join(dir, 'versions', 'v1')
    mkdirSync(versions, { recursive: true })
    const sameReadme = blocks.filter((b) => b.where.split(':')[0] === block.where.split(':')[0])
    for (const c of closure(named, block.path, sameReadme)) writeFileSync(join(versions, c.file), c.body)
    writeFileSync(join(versions, `${block.path}.ts`), block.body)
    const { db } = await getTestDb(t)
    const app = Fastify({ logger: false })
    t.teardown(async () => await app.close())
    await app.register(svcCore, { db, jwtSecret: 'readme-schema-secret-0123456789abcdef', schemaDir: dir })
    await app.ready()
    t.ok(app.svc.registry.get('v1', block.path) !== undefined, `${block.path} is served`)
  })
}
