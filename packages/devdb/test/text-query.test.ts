import t from 'tap'
import { normalizeTextIndex, parseTextQuery } from '../src/text/index.js'

const spec = normalizeTextIndex({ title: 'text' }, {})
const parse = (search: string, extra: Record<string, unknown> = {}) =>
  parseTextQuery({ $search: search, ...extra }, spec)

t.test('terms are stemmed, deduplicated and stripped of stop words', async (t) => {
  const q = parse('The Running  runners run')
  t.same(q.terms, ['run', 'runner'])
  t.same([q.phrases, q.negatedTerms, q.negatedPhrases], [[], [], []])
  t.equal(q.language, 'english')
  t.same(parse('the and of').terms, [], 'only stop words: no terms')
})

t.test('phrases: raw text kept, words also become terms', async (t) => {
  const q = parse('"Big Cakes" coffee')
  t.same(q.phrases, ['Big Cakes'])
  t.same(q.terms, ['big', 'cake', 'coffe'])
  t.same(parse('"unterminated phrase').phrases, [], 'an unterminated quote is no phrase')
  t.same(parse('"unterminated phrase').terms, ['untermin', 'phrase'])
})

t.test('negation rules of MongoDB', async (t) => {
  t.same(parse('coffee -tea').negatedTerms, ['tea'])
  t.same(parse('-tea-milk coffee').negatedTerms, ['tea', 'milk'], '-a-b negates both')
  t.same(parse('coffee - tea').negatedTerms, [], '"- tea" negates nothing')
  t.same(parse('coffee - tea').terms, ['coffe', 'tea'])
  t.same(parse('foo-bar').negatedTerms, [], 'a hyphen inside a word does not negate')
  t.same(parse('foo-bar').terms, ['foo', 'bar'])
  const q = parse('cake -"sugar free" -"no nuts"-"low fat"')
  t.same(q.negatedPhrases, ['sugar free', 'no nuts', 'low fat'])
  t.same(q.terms, ['cake'], 'words of negated phrases are not terms')
  t.same(q.negatedTerms, [])
  t.same(parse('cake - "with cream"').phrases, ['with cream'], 'whitespace after - : a positive phrase')
})

t.test('case/diacritic-sensitive queries keep the spelling in terms', async (t) => {
  const q = parse('Café Running', { $caseSensitive: true, $diacriticSensitive: true })
  t.same(q.terms, ['Café', 'Run'])
  t.same((q as unknown as { boundsTerms: string[] }).boundsTerms, ['cafe', 'run'], 'the index is still searched folded')
  t.equal(q.caseSensitive, true)
  t.equal(q.diacriticSensitive, true)
})

t.test('$language selects stop words and stemming', async (t) => {
  t.same(parse('the running', { $language: 'none' }).terms, ['the', 'running'])
  t.equal(parse('x', { $language: 'none' }).language, 'none')
  const noneIndex = normalizeTextIndex({ title: 'text' }, { default_language: 'none' })
  t.same(
    parseTextQuery({ $search: 'the running' }, noneIndex).terms,
    ['the', 'running'],
    "index default_language 'none'"
  )
})

t.test('invalid $text operands are refused like MongoDB 7.0', async (t) => {
  t.throws(() => parseTextQuery({}, spec), {
    code: 4,
    codeName: 'NoSuchKey',
    message: 'Missing expected field "$search"'
  })
  t.throws(() => parseTextQuery({ $search: 5 }, spec), {
    code: 14,
    codeName: 'TypeMismatch',
    message: '"$search" had the wrong type. Expected string, found int'
  })
  t.throws(() => parseTextQuery({ $search: 'a', $language: 1.5 }, spec), {
    code: 14,
    message: '"$language" had the wrong type. Expected string, found double'
  })
  t.throws(() => parseTextQuery({ $search: 'a', $caseSensitive: 'yes' }, spec), {
    code: 14,
    message: '"$caseSensitive" had the wrong type. Expected bool, found string'
  })
  t.throws(() => parseTextQuery({ $search: 'a', $diacriticSensitive: 1 }, spec), {
    code: 14,
    message: /Expected bool, found int/
  })
  t.throws(() => parseTextQuery({ $search: 'a', $foo: 1 }, spec), {
    code: 2,
    codeName: 'BadValue',
    message: 'extra fields in $text'
  })
  t.throws(() => parseTextQuery({ $search: 'a', $language: 'xx' }, spec), {
    code: 2,
    message: 'unsupported language: "xx" for text index version 3'
  })
  t.throws(() => parseTextQuery('a' as never, spec), { code: 2, message: '$text expects an object' })
})
