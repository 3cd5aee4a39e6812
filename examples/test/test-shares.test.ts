import t from 'tap'
import { pathToFileURL } from 'node:url'
import { join } from 'node:path'
import { importShare, runShare, shareableTestFiles, shareOf } from '../../scripts/test-shares.mjs'

// The packages' test shares (scripts/test-shares.mjs): every test file runs, in exactly one share.

t.test('shareableTestFiles: every *.test.ts under test/, sorted; shares/ and *.alone.test.ts left out', async (t) => {
  const dir = t.testdir({
    'b.test.ts': '',
    'a.test.ts': '',
    'heap.alone.test.ts': '',
    'helper.ts': '',
    'types.tst.ts': '',
    shares: { '1.test.ts': '' },
    deep: { 'c.test.ts': '', fixtures: { 'd.test.ts': '' } }
  })
  t.same(shareableTestFiles(dir), ['a.test.ts', 'b.test.ts', 'deep/c.test.ts', 'deep/fixtures/d.test.ts'])
})

t.test('shareOf: the shares of a list are disjoint, cover it, and spread neighbours apart', async (t) => {
  const files = Array.from({ length: 11 }, (_, i) => `f${String(i).padStart(2, '0')}`)
  const shares = [1, 2, 3, 4].map((i) => shareOf(files, i, 4))
  t.same(shares.flat().sort(), files, 'each file in exactly one share')
  t.same(
    shares.map((s) => s.length),
    [3, 3, 3, 2]
  )
  t.same(shares[0], ['f00', 'f04', 'f08'], 'every fourth file')
  t.same(shareOf(files, 1, 1), files)
  for (const [index, count] of [
    [0, 4],
    [5, 4],
    [1, 0],
    [1.5, 4]
  ]) {
    t.throws(() => shareOf(files, index, count), { message: `test shares: share ${index} of ${count} does not exist` })
  }
})

t.test('importShare: imports its share of the files beside shares/, one after another', async (t) => {
  const mark = (name: string): string => `globalThis.sharesSeen = [...(globalThis.sharesSeen ?? []), '${name}']\n`
  const dir = t.testdir({
    'a.test.mjs': mark('not a .ts test file'),
    'a.test.ts': mark('a'),
    'b.test.ts': mark('b'),
    'c.test.ts': mark('c'),
    'x.alone.test.ts': mark('x'),
    shares: { '1.test.ts': '' }
  })
  const g = globalThis as { sharesSeen?: string[] }
  t.teardown(() => {
    delete g.sharesSeen
  })
  const shareFile = pathToFileURL(join(dir, 'shares', '1.test.ts')).href
  t.same(await importShare(shareFile, 1, 2), ['a.test.ts', 'c.test.ts'])
  t.same(g.sharesSeen, ['a', 'c'], 'imported in name order, nothing else')
  t.same(await importShare(shareFile, 2, 2), ['b.test.ts'])
  t.same(g.sharesSeen, ['a', 'c', 'b'])
})

t.test("runShare: one first test imports the share, so the files' tests queue behind it", async (t) => {
  const dir = t.testdir({ 'a.test.ts': 'globalThis.runShareSeen = true\n', shares: { '1.test.ts': '' } })
  const g = globalThis as { runShareSeen?: boolean }
  t.teardown(() => {
    delete g.runShareSeen
  })
  const declared: Array<{ name: string; fn: (t: { pass: (msg: string) => void }) => Promise<void> }> = []
  runShare(
    { test: (name, fn) => declared.push({ name, fn }) },
    pathToFileURL(join(dir, 'shares', '1.test.ts')).href,
    1,
    1
  )
  t.same(
    declared.map((d) => d.name),
    ['test share 1 of 1: its files imported']
  )
  t.equal(g.runShareSeen, undefined, 'nothing imported before the test runs')
  const passed: string[] = []
  await declared[0].fn({ pass: (msg) => passed.push(msg) })
  t.equal(g.runShareSeen, true)
  t.same(passed, ['1 files: a.test.ts'])
})

t.test('every package with test shares runs all of its test files', async (t) => {
  const root = new URL('../../', import.meta.url)
  const { readFileSync, readdirSync, existsSync } = await import('node:fs')
  const dirs = ['packages', 'apps'].flatMap((d) =>
    readdirSync(new URL(d, root)).map((name) => new URL(`${d}/${name}/`, root))
  )
  dirs.push(new URL('examples/', root))
  let checked = 0
  for (const dir of dirs) {
    const sharesDir = new URL('test/shares/', dir)
    if (!existsSync(sharesDir)) continue
    checked++
    const pkg = JSON.parse(readFileSync(new URL('package.json', dir), 'utf8'))
    const shareFiles = readdirSync(sharesDir).filter((f) => f.endsWith('.test.ts'))
    const count = shareFiles.length
    t.same(
      shareFiles.sort(),
      Array.from({ length: count }, (_, i) => `${i + 1}.test.ts`).sort(),
      `${pkg.name}: shares numbered 1..${count}`
    )
    for (const f of shareFiles) {
      t.match(
        readFileSync(new URL(f, sharesDir), 'utf8'),
        `runShare(t, import.meta.url, ${f.split('.')[0]}, ${count})`,
        `${pkg.name}: ${f} imports its own share of ${count}`
      )
    }
    const include: string[] = pkg.tap.include
    t.ok(include.includes('test/shares/*.test.ts'), `${pkg.name}: tap includes the shares`)
    const testDir = new URL('test/', dir)
    const alone = readdirSync(testDir, { recursive: true, encoding: 'utf8' }).filter((f) =>
      f.endsWith('.alone.test.ts')
    )
    for (const f of alone) t.ok(include.includes(`test/${f}`), `${pkg.name}: tap includes test/${f}, run alone`)
    t.same(
      include.filter((p) => p !== 'test/shares/*.test.ts').sort(),
      alone.map((f) => `test/${f}`).sort(),
      `${pkg.name}: tap includes nothing else (a plain test file is in a share)`
    )
  }
  t.ok(checked >= 2, `${checked} packages checked`)
})
