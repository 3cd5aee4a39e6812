import { existsSync, readFileSync, readdirSync } from 'node:fs'
import { join, relative } from 'node:path'

/** A fenced code block of a README whose first line names a repository file it reproduces. */
export interface FileClaim {
  readme: string
  /** 1-based line of the opening fence. */
  line: number
  /** Repository-relative path named by the block's first line. */
  path: string
  /** `// path (excerpt)`: the block is a contiguous part of the file, not all of it. */
  excerpt: boolean
  /** The block without its first (claim) line. */
  body: string
}

// `// schema/versions/v1/tasks.ts` or `# .ci/run` alone on a block's first line.
const CLAIM = /^(?:\/\/|#)\s+([\w.@-]+(?:\/[\w.@-]+)*\.[A-Za-z0-9]+)(\s+\(excerpt\))?\s*$/

/** Every claim in one markdown text. */
export function fileClaims (markdown: string, readme: string): FileClaim[] {
  const claims: FileClaim[] = []
  const lines = markdown.split('\n')
  for (let i = 0; i < lines.length; i++) {
    if (!/^```/.test(lines[i])) continue
    const start = i
    let end = i + 1
    while (end < lines.length && !/^```\s*$/.test(lines[end])) end++
    const m = CLAIM.exec(lines[start + 1] ?? '')
    if (m != null && start + 1 < end) {
      claims.push({
        readme,
        line: start + 1,
        path: m[1],
        excerpt: m[2] !== undefined,
        body: lines.slice(start + 2, end).join('\n')
      })
    }
    i = end
  }
  return claims
}

/** README.md at the root and in every workspace folder (packages/*, apps/*, examples). */
export function readmes (root: string): string[] {
  const found = [join(root, 'README.md')]
  for (const parent of ['packages', 'apps']) {
    const dir = join(root, parent)
    if (!existsSync(dir)) continue
    for (const name of readdirSync(dir)) found.push(join(dir, name, 'README.md'))
  }
  found.push(join(root, 'examples', 'README.md'))
  return found.filter((f) => existsSync(f))
}

/** Why a claim is false, or null when the block matches the shipped file. */
export function checkClaim (root: string, claim: FileClaim): string | null {
  const where = `${claim.readme}:${claim.line} claims to show ${claim.path}`
  const file = join(root, claim.path)
  if (!existsSync(file)) return `${where}, which does not exist`
  const shipped = readFileSync(file, 'utf8').replace(/\n$/, '')
  if (claim.excerpt ? shipped.includes(claim.body) : shipped === claim.body) return null
  return `${where} but differs from it (${claim.excerpt ? 'not a contiguous part of it' : 'copy the file into the block, or mark the block "(excerpt)"'})`
}

export function describeReadme (root: string, file: string): string {
  return relative(root, file)
}
