import t from 'tap'
import { readFileSync } from 'node:fs'
import { REPO_ROOT } from './helpers/process.js'
import { checkClaim, describeReadme, fileClaims, readmes } from './helpers/readme-blocks.js'

// A README code block whose first line is `// <path>` (or `# <path>`) claims to be that
// shipped file; `// <path> (excerpt)` claims to be a contiguous part of it.
t.test('README code blocks that name a shipped file are that file', async (t) => {
  const claims = readmes(REPO_ROOT).flatMap((f) => fileClaims(readFileSync(f, 'utf8'), describeReadme(REPO_ROOT, f)))
  const rootPaths = claims.filter((c) => c.readme === 'README.md').map((c) => c.path)
  t.ok(rootPaths.includes('schema/versions/v1/tasks.ts'), 'the root README shows the shipped tasks schema')
  t.ok(rootPaths.includes('examples/app.mjs'), 'the root README shows the shipped embedding example')
  for (const claim of claims) {
    t.equal(checkClaim(REPO_ROOT, claim), null, `${claim.readme}:${claim.line} ${claim.path}`)
  }
})

t.test('a drifted block is caught', async (t) => {
  const [claim] = fileClaims('text\n```ts\n// schema/versions/v1/tasks.ts\nexport default {}\n```\n', 'X.md')
  t.match(checkClaim(REPO_ROOT, claim), /X\.md:2 claims to show schema\/versions\/v1\/tasks\.ts but differs/)
  const [missing] = fileClaims('```sh\n# scripts/nowhere.sh\necho\n```', 'Y.md')
  t.match(checkClaim(REPO_ROOT, missing), /which does not exist/)
  const [part] = fileClaims(
    "```ts\n// schema/versions/v1/tasks.ts (excerpt)\n  path: 'tasks',\n  collection: 'tasks',\n```",
    'Z.md'
  )
  t.equal(checkClaim(REPO_ROOT, part), null, 'an excerpt that is part of the file')
  t.same(fileClaims('```sh\n# → 201 { user }\ncurl x\n```', 'W.md'), [], 'a comment that is not a path claims nothing')
})
