// tap runs every test file in a process of its own, and on two cores that process's start-up
// (svc, its dependencies and devdb loaded through the TypeScript hooks, coverage written) cost
// more than most files' tests: core's 75 files spent ~11 s of a tap job each outside their tests
// (538 s for the suite; 150 s in four shares). A package instead has a few share files,
// `test/shares/<i>.test.ts`, each importing one share of its test files into one process: their
// top-level `t.test()`s land on that process's root test and run one after another, as they did
// in a process of their own.
//
// A file that needs a process to itself (it measures the process's heap, changes process-wide
// state, or runs for minutes) is named `*.alone.test.ts` and listed in the package's tap
// `include` beside the shares; every other `*.test.ts` under `test/` is in exactly one share.
import { readdirSync } from 'node:fs'
import { dirname, join, relative, sep } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const SHARES_DIR = 'shares'

/**
 * The test files under `testDir` that run in shares, relative to it ('/'-separated), sorted.
 * @param {string} testDir
 * @returns {string[]}
 */
export function shareableTestFiles (testDir) {
  /** @type {string[]} */
  const out = []
  /** @param {string} dir */
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name)
      if (entry.isDirectory()) {
        if (entry.name !== SHARES_DIR && entry.name !== 'node_modules') walk(path)
      } else if (entry.name.endsWith('.test.ts') && !entry.name.endsWith('.alone.test.ts')) {
        out.push(relative(testDir, path).split(sep).join('/'))
      }
    }
  }
  walk(testDir)
  return out.sort()
}

/**
 * Share `index` (1-based) of `count`: every count-th file in name order, so that a family of slow
 * files with one prefix (durable-*, event-log-*) spreads over the shares.
 * @template T
 * @param {readonly T[]} files
 * @param {number} index
 * @param {number} count
 * @returns {T[]}
 */
export function shareOf (files, index, count) {
  if (!Number.isInteger(count) || count < 1 || !Number.isInteger(index) || index < 1 || index > count) {
    throw new Error(`test shares: share ${index} of ${count} does not exist`)
  }
  return files.filter((_, i) => i % count === index - 1)
}

/**
 * A share file's body: one first test on tap's root that imports the share's files. Their tests
 * queue on the root behind it, so the root cannot run out of tests and end while a file's
 * top-level code still awaits (a database, a server) before declaring its own; an import that
 * throws fails this test instead of the process.
 * @param {{ test: (name: string, fn: (t: { pass: (msg: string) => void }) => Promise<void>) => unknown }} t
 * @param {string} shareFileUrl the share file's `import.meta.url`
 * @param {number} index
 * @param {number} count
 */
export function runShare (t, shareFileUrl, index, count) {
  t.test(`test share ${index} of ${count}: its files imported`, async (t) => {
    const files = await importShare(shareFileUrl, index, count)
    t.pass(`${files.length} files: ${files.join(', ')}`)
  })
}

/**
 * Imports share `index` of `count` of the test files of the `test/` folder whose `shares/` holds
 * the calling file (pass its `import.meta.url`), one after another; answers their names.
 * @param {string} shareFileUrl
 * @param {number} index
 * @param {number} count
 * @returns {Promise<string[]>}
 */
export async function importShare (shareFileUrl, index, count) {
  const testDir = dirname(dirname(fileURLToPath(shareFileUrl)))
  const files = shareOf(shareableTestFiles(testDir), index, count)
  for (const file of files) await import(pathToFileURL(join(testDir, file)).href)
  return files
}
