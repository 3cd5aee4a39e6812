import t from 'tap'
import { summarize } from '../../scripts/test-summary.mjs'

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
