#!/usr/bin/env node
// `pnpm lint`'s second step: no import cycle inside any package's src/, type-only imports included
// (a type cycle still ties two modules' meanings together and keeps a file from moving alone).
import { readdirSync, existsSync } from 'node:fs'
import { join, dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import madge from 'madge'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const dirs = ['packages', 'apps']
  .flatMap((group) => readdirSync(join(root, group)).map((name) => join(root, group, name)))
  .filter((dir) => existsSync(join(dir, 'src')) && existsSync(join(dir, 'tsconfig.json')))
let cycles = 0
for (const dir of dirs) {
  const graph = await madge(join(dir, 'src'), {
    fileExtensions: ['ts', 'tsx'],
    tsConfig: join(dir, 'tsconfig.json'),
    detectiveOptions: { ts: { skipTypeImports: false }, tsx: { skipTypeImports: false } }
  })
  for (const cycle of graph.circular()) {
    cycles++
    console.error(`${dir.slice(root.length + 1)}/src: ${cycle.join(' > ')}`)
  }
}
if (cycles > 0) {
  console.error(`${cycles} import cycle(s): move the shared piece to a module both sides import`)
  process.exit(1)
}
console.log(`no import cycles in ${dirs.length} packages`)
