// The totals line of `pnpm test` (scripts/test-all.mjs), read from turbo's task-prefixed output:
// each package's last tap summary (`<pkg>:test: # { total: 135, pass: 133, fail: 1, skip: 1 }`)
// and turbo's verdicts (`<pkg>#test:  ERROR  command … exited (1)`, `Failed:    a#test, b#test`).

const TAP_SUMMARY = /^(\S+):test: # \{ (total: \d+[^}]*) \}\s*$/
const TASK_ERROR = /^(\S+)#test:\s+ERROR\s+command .* exited \(\d+\)/
const FAILED_LIST = /^\s*Failed:\s+(.+)$/
const TAP_LINE = /^(\S+):test: (.*)$/
const SUBTEST = /^( *)# Subtest: (.*)$/
const NOT_OK = /^( *)not ok \d+ - (.*?)(?: # time=[\d.]+m?s)?$/
/** Diagnostic lines kept per failing test point: enough for the assertion, its place and diff. */
const DIAGNOSTIC_LINES = 14
const UNSHOWN_SECTIONS = /^(stack|source|stdio|cwd|externalID|args|env):/
const UNSHOWN_LINES = /^\s+(columnNumber|typeName|isToplevel|methodName|functionName):/

/**
 * The failing test points of every package, innermost only (a failed assertion, not each
 * subtest and file around it), each as `pkg › file › subtest › … › message` and the first lines
 * of its YAML diagnostic (without the stack and source excerpt): a CI log that keeps only its
 * tail still says what failed and where.
 * @param {string[]} lines turbo's stdout
 * @returns {string[][]} one list of lines per failing test point
 */
export function failingPoints (lines) {
  /** @type {Map<string, { stack: string[], points: Array<{ path: string[], text: string[] }>, open: string[] | null, started: boolean, skipping: boolean, indent: number }>} */
  const pkgs = new Map()
  for (const raw of lines) {
    const m = TAP_LINE.exec(raw)
    if (m == null) continue
    let p = pkgs.get(m[1])
    if (p == null) {
      pkgs.set(m[1], (p = { stack: [], points: [], open: null, started: false, skipping: false, indent: 0 }))
    }
    const line = m[2]
    if (p.open != null) {
      const inBlock = line.startsWith(' '.repeat(p.indent))
      const text = line.slice(p.indent).trimEnd()
      if (!p.started && inBlock && text === '---') {
        p.started = true
        continue
      }
      if (p.started && inBlock && text !== '...') {
        // A top-level key starts a section (a blank line inside one does not); the stack and the
        // source excerpt repeat what `at` says.
        if (text !== '' && !text.startsWith(' ')) p.skipping = UNSHOWN_SECTIONS.test(text)
        if (!p.skipping && !UNSHOWN_LINES.test(text) && p.open.length < DIAGNOSTIC_LINES) p.open.push(text)
        continue
      }
      p.open = null
      if (inBlock && text === '...') continue
    }
    const sub = SUBTEST.exec(line)
    if (sub != null) {
      const depth = sub[1].length / 4
      p.stack.length = depth
      p.stack.push(sub[2])
      continue
    }
    const bad = NOT_OK.exec(line)
    if (bad == null) continue
    const depth = bad[1].length / 4
    const point = { path: [...p.stack.slice(0, depth), bad[2]], text: [] }
    p.points.push(point)
    p.open = point.text
    p.started = false
    p.skipping = false
    p.indent = bad[1].length + 2
  }
  /** @type {string[][]} */
  const out = []
  for (const [pkg, { points }] of pkgs) {
    const key = (path) => path.join('\u0000')
    for (const point of points) {
      const k = key(point.path)
      // A subtest or file that failed because something inside it did: its inner failure says more.
      if (points.some((o) => o !== point && key(o.path).startsWith(k + '\u0000'))) continue
      out.push([`${pkg} › ${point.path.join(' › ')}`, ...point.text.map((l) => `    ${l}`)])
    }
  }
  return out
}

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

/**
 * How long each package's tests ran, from its first output line to its last (turbo streams them
 * as they come), longest first: where the run's time went, in a log that keeps only its tail.
 * @param {Array<{ line: string, at: number }>} timed turbo's stdout lines with when each arrived (ms)
 * @returns {Array<{ pkg: string, ms: number }>}
 */
export function packageSpans (timed) {
  /** @type {Map<string, { first: number, last: number }>} */
  const spans = new Map()
  for (const { line, at } of timed) {
    const m = TAP_LINE.exec(line)
    if (m === null) continue
    const span = spans.get(m[1])
    if (span === undefined) spans.set(m[1], { first: at, last: at })
    else span.last = at
  }
  return [...spans].map(([pkg, s]) => ({ pkg, ms: s.last - s.first })).sort((a, b) => b.ms - a.ms)
}

/**
 * One line of them: `package times: @svc/core 6.1 min, @svc/devdb 2.0 min, …`.
 * @param {Array<{ pkg: string, ms: number }>} spans
 * @returns {string}
 */
export function formatSpans (spans) {
  return `package times: ${spans.map((s) => `${s.pkg} ${(s.ms / 60_000).toFixed(1)} min`).join(', ')}`
}
