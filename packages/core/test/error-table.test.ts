import t from 'tap'
import { readFileSync } from 'node:fs'
import { ErrorCodes } from '../src/errors.js'
import { errorTableMarkdown } from '../src/error-docs.js'
import { README, START, END } from '../scripts/errors-doc.js'

// The README's error table is written from core's code table (`pnpm --filter @svc/core errors:doc`).
t.test('the README error table is the one generated from ErrorCodes', async (t) => {
  const text = readFileSync(README, 'utf8')
  const from = text.indexOf(START)
  const to = text.indexOf(END)
  t.ok(from >= 0 && to > from, 'the README holds the generated block')
  t.equal(text.slice(from + START.length, to).trim(), errorTableMarkdown(), 'run `pnpm --filter @svc/core errors:doc`')
})

t.test('every code has a row with its status', async (t) => {
  const table = errorTableMarkdown()
  t.match(table, /^\| 400 \| `VALIDATION` \| invalid input;/m)
  t.match(table, /^\| 503 \| `SERVICE_UNAVAILABLE` \| /m)
  t.equal(table.split('\n').length, 2 + Object.keys(ErrorCodes).length, 'header, rule and one row per code')
})
