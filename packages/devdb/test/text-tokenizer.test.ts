import t from 'tap'
import { findLanguage, queryLanguage } from '../src/text/languages.js'
import { ENGLISH_STOP_WORDS } from '../src/text/stop-words-english.js'
import { INDEX_TOKENS, rawTokens, stripDiacritics, tokenize } from '../src/text/tokenizer.js'

const english = queryLanguage('english')
const none = queryLanguage('none')

t.test('splitting on whitespace and punctuation, apostrophe kept in English', async (t) => {
  t.same(rawTokens('Hello, world! snake_case e-mail "quoted" (x) a.b/c', english), [
    'Hello',
    'world',
    'snake_case',
    'e',
    'mail',
    'quoted',
    'x',
    'a',
    'b',
    'c'
  ])
  t.same(rawTokens("don't stop", english), ["don't", 'stop'])
  t.same(rawTokens("don't stop", none), ['don', 't', 'stop'], "'none' splits on the apostrophe")
  t.same(
    rawTokens('tab\tand\u00a0nbsp\u2014dash\u3002end', english),
    ['tab', 'and', 'nbsp', 'dash', 'end'],
    'Unicode whitespace, dashes and terminal punctuation'
  )
  t.same(rawTokens('  ,,  ', english), [])
})

t.test('stemming: English Snowball', async (t) => {
  t.same(tokenize('running runs run', english, INDEX_TOKENS), ['run', 'run', 'run'])
  t.same(tokenize('baking cakes generously', english, INDEX_TOKENS), ['bake', 'cake', 'generous'])
  t.same(tokenize('running', none, INDEX_TOKENS), ['running'], "'none' does not stem")
})

t.test('stop words: MongoDB English list, compared before stemming', async (t) => {
  t.equal(ENGLISH_STOP_WORDS.size, 174)
  for (const w of ['the', 'a', 'not', 'no', "don't", 'further', 'yourselves']) {
    t.ok(ENGLISH_STOP_WORDS.has(w), `${w} is a stop word`)
  }
  for (const w of ['also', 'like', 'many', 'never']) {
    t.notOk(ENGLISH_STOP_WORDS.has(w), `${w} is not (it is in other lists)`)
  }
  t.same(tokenize('The cat is not on the mat', english, INDEX_TOKENS), ['cat', 'mat'])
  t.same(tokenize('THE Cat', english, INDEX_TOKENS), ['cat'], 'stop words match case-insensitively')
  t.same(tokenize('the cat', none, INDEX_TOKENS), ['the', 'cat'], "'none' keeps stop words")
  t.same(tokenize('The cat', english, { ...INDEX_TOKENS, filterStopWords: false }), ['the', 'cat'])
})

t.test('case and diacritics', async (t) => {
  t.same(tokenize('Café CRÈME naïve', english, INDEX_TOKENS), ['cafe', 'creme', 'naiv'])
  t.same(tokenize('Café', english, { filterStopWords: true, caseSensitive: true, diacriticSensitive: false }), ['Cafe'])
  t.same(tokenize('Café', english, { filterStopWords: true, caseSensitive: false, diacriticSensitive: true }), ['café'])
  t.same(
    tokenize('Running', english, { filterStopWords: true, caseSensitive: true, diacriticSensitive: false }),
    ['Run'],
    'case-sensitive stemming keeps the spelling'
  )
  t.equal(stripDiacritics('Ångström façade'), 'Angstrom facade')
  t.equal(stripDiacritics('plain'), 'plain')
})

t.test('languages', async (t) => {
  t.equal(findLanguage('EN')?.name, 'english', 'codes and names are case-insensitive')
  t.equal(findLanguage('None')?.name, 'none')
  t.equal(findLanguage('klingon'), undefined)
  t.throws(() => findLanguage('french'), { code: 238, codeName: 'NotImplemented', message: /french/ })
  t.throws(() => queryLanguage('xx'), { code: 2, message: 'unsupported language: "xx" for text index version 3' })
})
