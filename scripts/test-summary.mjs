// The totals line of `pnpm test` (scripts/test-all.mjs), read from turbo's task-prefixed output:
// each package's last tap summary (`<pkg>:test: # { total: 135, pass: 133, fail: 1, skip: 1 }`)
// and turbo's verdicts (`<pkg>#test:  ERROR  command … exited (1)`, `Failed:    a#test, b#test`).

const TAP_SUMMARY = /^(\S+):test: # \{ (total: \d+[^}]*) \}\s*$/
const TASK_ERROR = /^(\S+)#test:\s+ERROR\s+command .* exited \(\d+\)/
const FAILED_LIST = /^\s*Failed:\s+(.+)$/

/**
 * @param {string[]} lines turbo's stdout
 * @param {number} exitCode turbo's exit code
 * @returns {{ packages: number, pass: number, fail: number, skip: number, todo: number, failed: string[], line: string }}
 */
export function summarize (lines, exitCode) {
  /** @type {Map<string, Record<string, number>>} */
  const counts = new Map()
  const failed = new Set()
  for (const line of lines) {
    const tap = TAP_SUMMARY.exec(line)
    if (tap != null) {
      // The root tap summary comes last in a package's run: later lines replace earlier ones.
      counts.set(tap[1], Object.fromEntries([...tap[2].matchAll(/(\w+): (\d+)/g)].map((m) => [m[1], Number(m[2])])))
      continue
    }
    const err = TASK_ERROR.exec(line)
    if (err != null) {
      failed.add(err[1])
      continue
    }
    const list = FAILED_LIST.exec(line)
    if (list != null) for (const task of list[1].split(',')) failed.add(task.trim().replace(/#test$/, ''))
  }
  for (const [pkg, c] of counts) if ((c.fail ?? 0) > 0) failed.add(pkg)
  const sum = (k) => [...counts.values()].reduce((n, c) => n + (c[k] ?? 0), 0)
  const names = [...failed].sort()
  // Turbo failed without naming a package (it crashed before any task): never a clean-looking line.
  if (exitCode !== 0 && names.length === 0) names.push(`turbo exited ${exitCode}`)
  const totals = { packages: counts.size, pass: sum('pass'), fail: sum('fail'), skip: sum('skip'), todo: sum('todo') }
  const verdict = names.length === 0 ? 'failed packages: none' : `FAILED: ${names.join(', ')}`
  const line =
    `svc tests: ${totals.packages} packages, ${totals.pass} passed, ${totals.fail} failed, ` +
    `${totals.skip} skipped, ${totals.todo} todo (tap test points); ${verdict}`
  return { ...totals, failed: names, line }
}
