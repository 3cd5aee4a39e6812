import t from 'tap'
import { parseDuration } from '../src/auth/index.js'

t.test('parseDuration accepts seconds and unit suffixes', async (t) => {
  t.equal(parseDuration(900), 900)
  t.equal(parseDuration('900'), 900)
  t.equal(parseDuration('45s'), 45)
  t.equal(parseDuration('15m'), 900)
  t.equal(parseDuration('2h'), 7200)
  t.equal(parseDuration('30d'), 2_592_000)
  t.equal(parseDuration(' 2H '), 7200)
})

t.test('parseDuration refuses everything else with a message naming the value', async (t) => {
  for (const bad of ['', 'abc', '15 minutes', '-5', '1.5h', '0', '10w', 0, -1, 1.5, Number.NaN]) {
    t.throws(() => parseDuration(bad as string | number), /invalid duration/, `refuses ${JSON.stringify(bad)}`)
  }
})
