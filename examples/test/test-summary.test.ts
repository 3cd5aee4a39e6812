import t from 'tap'
import { failingPoints, formatSpans, packageSpans, summarize } from '../../scripts/test-summary.mjs'

// The last line of `pnpm test`, from turbo's task-prefixed output as turbo 2 and tap 21 print it.

const passing = [
  '@svc/core:test:     # { total: 3, pass: 3 }',
  '@svc/core:test: # { total: 1211, pass: 1209, skip: 2 }',
  '@svc/softdelete:test: # { total: 135, pass: 135 }',
  ' Tasks:    2 successful, 2 total'
]

t.test('totals every package and names none when all pass', async (t) => {
  const s = summarize(passing, 0)
  t.same(
    { packages: s.packages, pass: s.pass, fail: s.fail, skip: s.skip, failed: s.failed },
    { packages: 2, pass: 1344, fail: 0, skip: 2, failed: [] }
  )
  t.equal(
    s.line,
    'svc tests: 2 packages, 1344 passed, 0 failed, 2 skipped, 0 todo (tap test points); failed packages: none'
  )
})

t.test("names the packages that failed: failing test points, a crash, turbo's own list", async (t) => {
  const s = summarize(
    [
      ...passing,
      '@svc/mcp:test: # { total: 40, pass: 38, fail: 1, todo: 1 }',
      '@svc/files#test:  ERROR  command (/repo/packages/files) /usr/bin/pnpm run test exited (1)',
      'Failed:    @svc/files#test, @svc/mcp#test, @svc/audit#test'
    ],
    1
  )
  t.same(s.failed, ['@svc/audit', '@svc/files', '@svc/mcp'], 'coverage-only and crashed packages count, from turbo')
  t.equal(s.fail, 1)
  t.equal(s.todo, 1)
  t.match(s.line, /; FAILED: @svc\/audit, @svc\/files, @svc\/mcp$/)
})

t.test('a failed run that names no package never reads clean', async (t) => {
  t.match(summarize([], 2).line, /FAILED: turbo exited 2$/)
})

// tap 21's own report of a file with one failed assertion two subtests deep, as turbo prefixes it.
const failingRun = `# Subtest: test/a.test.ts
    # Subtest: outer group
        # Subtest: inner thing
            not ok 1 - one is two
              ---
              compare: ===
              at:
                fileName: test/a.test.ts
                lineNumber: 4
                columnNumber: 7
                typeName: Test
              stack: |
                Test.<anonymous> (test/a.test.ts:4:7)
              source: |
                t.equal(1, 2, 'one is two')
${'                '}
                const blocking = 1
              diff: |
                -2
                +1
              ...

            ok 2 - should be equal
            1..2
        not ok 1 - inner thing # time=275.484ms
          ---
          at:
            fileName: test/a.test.ts
            lineNumber: 3
          ...

        1..1
    not ok 1 - outer group # time=369.579ms
      ---
      at:
        lineNumber: 2
      ...

    # Subtest: fine
        ok 1 - x
        1..1
    ok 2 - fine # time=0.882ms
    1..2
not ok 1 - test/a.test.ts # time=511.231ms
  ---
  command: /usr/bin/node
  ...
# Subtest: test/b.test.ts
    not ok 1 - timeout!
      ---
      signal: SIGTERM
      ...
    1..1
not ok 2 - test/b.test.ts # time=30000ms
# { total: 4, pass: 2, fail: 2 }`
  .split('\n')
  .map((line) => `@svc/mcp:test: ${line}`)

t.test('repeats each innermost failing test point with its path and diagnostic', async (t) => {
  t.same(failingPoints(failingRun), [
    [
      '@svc/mcp › test/a.test.ts › outer group › inner thing › one is two',
      '    compare: ===',
      '    at:',
      '      fileName: test/a.test.ts',
      '      lineNumber: 4',
      '    diff: |',
      '      -2',
      '      +1'
    ],
    ['@svc/mcp › test/b.test.ts › timeout!', '    signal: SIGTERM']
  ])
  t.same(failingPoints(passing), [], 'none in a passing run')
  t.equal(summarize(failingRun, 1).fail, 2, 'the totals read the same output')
})

t.test('a long diagnostic is cut, packages are kept apart', async (t) => {
  const long = ['not ok 1 - big', '  ---', ...Array.from({ length: 40 }, (_, i) => `  line${i}: x`), '  ...']
  const points = failingPoints([
    ...long.map((l) => `@svc/a:test: ${l}`),
    '@svc/b:test: not ok 1 - other',
    '@svc/b:test: ok 2 - fine'
  ])
  t.equal(points.length, 2)
  t.equal(points[0][0], '@svc/a › big')
  t.equal(points[0].length, 1 + 14, 'the first 14 diagnostic lines')
  t.same(points[1], ['@svc/b › other'], 'no diagnostic block: the line alone')
})

t.test('how long each package ran: its first to its last line, longest first', async (t) => {
  const timed = [
    { line: '@svc/core:test: TAP version 14', at: 1_000 },
    { line: '@svc/devdb:test: TAP version 14', at: 2_000 },
    { line: ' Tasks:    2 successful, 2 total', at: 2_500 },
    { line: '@svc/devdb:test: # { total: 1, pass: 1 }', at: 62_000 },
    { line: '@svc/core:test: ok 1 - test/shares/1.test.ts # time=5.1ms', at: 200_000 },
    { line: '@svc/core:test: # { total: 1, pass: 1 }', at: 367_000 }
  ]
  const spans = packageSpans(timed)
  t.same(spans, [
    { pkg: '@svc/core', ms: 366_000 },
    { pkg: '@svc/devdb', ms: 60_000 }
  ])
  t.equal(formatSpans(spans), 'package times: @svc/core 6.1 min, @svc/devdb 1.0 min')
  t.same(packageSpans([]), [])
})
