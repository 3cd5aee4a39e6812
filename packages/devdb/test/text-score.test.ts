import t from 'tap'
import { normalizeTextIndex, parseTextQuery, textScore, validateTextDocument } from '../src/text/index.js'

const spec = normalizeTextIndex({ subject: 'text' }, {})
const score = (subject: unknown, search: string, extra: Record<string, unknown> = {}, s = spec): number =>
  textScore({ subject }, s, parseTextQuery({ $search: search, ...extra }, s))

t.test("MongoDB's scores (values as a real server reports them)", async (t) => {
  t.equal(score('He waits', 'wait'), 1, 'stop words do not count as tokens')
  t.equal(score("I'm still waiting", 'wait'), 0.75)
  t.equal(score('I waited for hours', 'wait'), 0.75)
  t.equal(score('wait', 'wait'), 1.1, 'the whole field equal to the term earns the 0.1 bonus')
  t.equal(score('Wait wait wait', 'wait'), 1.75, 'repeats count 1 + 1/2 + 1/4')
  t.equal(score('coffee', 'coffee'), 1, 'no bonus when the stem differs from the raw text')
  t.equal(score('coffee and cream', 'coffee cream'), 1.5, 'scores of several terms add up')
})

t.test('OR of terms, stemming, stop words', async (t) => {
  t.ok(score('I was running', 'runs') > 0, '"runs" matches "running"')
  t.ok(score('she runs daily', 'run') > 0)
  t.equal(score('walking', 'run'), 0)
  t.ok(score('apples only', 'apple banana') > 0, 'one of the terms is enough')
  t.equal(score('the the the', 'the'), 0, 'a stop word alone matches nothing')
  t.equal(score('anything', ''), 0, 'empty search matches nothing')
  t.equal(score(42, 'answer'), 0, 'non-strings are not indexed')
})

t.test('phrases and negation', async (t) => {
  t.ok(score('Coffee Shopping today', '"coffee shop"') > 0, 'phrase as substring, case-insensitive')
  t.equal(score('shop for coffee', '"coffee shop"'), 0, 'words present but not the phrase')
  t.equal(score('coffee and cake', 'coffee -cake'), 0, 'negated term excludes')
  t.ok(score('coffee and tea', 'coffee -cake') > 0)
  t.equal(score('coffee and cakes', 'coffee -cake'), 0, 'negation is stemmed too')
  t.equal(score('coffee with sugar free cream', 'coffee -"sugar free"'), 0, 'negated phrase excludes')
  t.ok(score('coffee with sugar', 'coffee -"sugar free"') > 0)
  t.equal(score('only tea here', '-coffee'), 0, 'only negations: nothing matches')
  t.ok(score('big cake sale', '"big cake" "cake sale"') > 0, 'every phrase present')
  t.equal(score('big cake', '"big cake" "cake sale"'), 0, 'phrases are ANDed')
})

t.test('case and diacritic sensitivity', async (t) => {
  t.ok(score('Café com Leite', 'cafe') > 0, 'diacritic-insensitive by default')
  t.ok(score('cafe com leite', 'Café') > 0)
  t.equal(score('cafe com leite', 'café', { $diacriticSensitive: true }), 0)
  t.ok(score('Café com Leite', 'café', { $diacriticSensitive: true }) > 0)
  t.equal(score('coffee', 'Coffee', { $caseSensitive: true }), 0)
  t.ok(score('Coffee time', 'Coffee', { $caseSensitive: true }) > 0)
  t.equal(score('COFFEE shop', '"coffee shop"', { $caseSensitive: true }), 0, 'case-sensitive phrase')
  t.ok(score('COFFEE shop', '"coffee shop"') > 0)
})

t.test('weights order the results', async (t) => {
  const weighted = normalizeTextIndex({ title: 'text', body: 'text' }, { weights: { title: 10, body: 2 } })
  const q = parseTextQuery({ $search: 'mongodb' }, weighted)
  const inTitle = textScore({ title: 'mongodb', body: 'other words here' }, weighted, q)
  const inBody = textScore({ title: 'other', body: 'mongodb' }, weighted, q)
  const both = textScore({ title: 'mongodb', body: 'mongodb' }, weighted, q)
  t.equal(inTitle, 11, '10 × 1 × 1 × 1.1')
  t.equal(inBody, 2.2)
  t.equal(both, 13.2, 'scores of all fields add up')
  t.equal(textScore({ other: 'mongodb' }, weighted, q), 0, 'unindexed field')
})

t.test('arrays, nested paths and wildcard', async (t) => {
  const nested = normalizeTextIndex({ 'a.b': 'text' }, {})
  const q = parseTextQuery({ $search: 'hello' }, nested)
  t.ok(textScore({ a: { b: 'hello world' } }, nested, q) > 0)
  t.ok(textScore({ a: [{ b: 'x' }, { b: ['hello'] }] }, nested, q) > 0, 'arrays of subdocuments and arrays of strings')
  t.equal(textScore({ a: { c: 'hello' } }, nested, q), 0)
  t.equal(textScore({ a: { b: [['hello']] } }, nested, q), 0, 'arrays in arrays are not indexed')
  const all = normalizeTextIndex({ '$**': 'text' }, {})
  const qa = parseTextQuery({ $search: 'hello' }, all)
  t.ok(textScore({ deep: { er: ['x', { s: 'hello' }] } }, all, qa) > 0, 'wildcard covers every string')
  const qNone = parseTextQuery({ $search: 'none' }, all)
  t.equal(textScore({ language: 'none', x: 'hello' }, all, qNone), 0, 'wildcard skips the language override field')
  t.ok(textScore({ language: 'none', x: 'none' }, all, qNone) > 0)
})

t.test('language override per document', async (t) => {
  t.equal(score('the running', 'the', { $language: 'none' }), 0, 'English document: "the" was never indexed')
  t.ok(
    textScore(
      { subject: 'the running', language: 'none' },
      spec,
      parseTextQuery({ $search: 'the', $language: 'none' }, spec)
    ) > 0,
    "document in 'none' keeps stop words"
  )
  t.equal(
    textScore({ subject: 'running', language: 'none' }, spec, parseTextQuery({ $search: 'run' }, spec)),
    0,
    "'none' document is not stemmed"
  )
  t.throws(() => validateTextDocument({ subject: 'x', language: 'xx' }, spec), {
    code: 17262,
    message: 'language override unsupported: xx'
  })
  t.throws(() => validateTextDocument({ subject: 'x', language: 5 }, spec), { code: 17261 })
  const custom = normalizeTextIndex({ subject: 'text' }, { language_override: 'lang' })
  t.doesNotThrow(
    () => validateTextDocument({ subject: 'x', language: 'xx' }, custom),
    'only the configured override field counts'
  )
})
