import t from 'tap'
import { normalizeTextIndex, textIndexListing } from '../src/text/index.js'

t.test('normalized spec and listIndexes form', async (t) => {
  const spec = normalizeTextIndex({ title: 'text', body: 'text' }, {})
  t.same(spec, {
    name: 'title_text_body_text',
    weights: { body: 1, title: 1 },
    defaultLanguage: 'english',
    languageOverride: 'language',
    extraKeys: {},
    extraBefore: 0
  })
  t.same(textIndexListing(spec), {
    v: 2,
    key: { _fts: 'text', _ftsx: 1 },
    name: 'title_text_body_text',
    weights: { body: 1, title: 1 },
    default_language: 'english',
    language_override: 'language',
    textIndexVersion: 3
  })
  t.same(
    Object.keys(textIndexListing(spec)),
    ['v', 'key', 'name', 'weights', 'default_language', 'language_override', 'textIndexVersion'],
    'field order as mongod lists it'
  )
})

t.test('options, compound keys, wildcard', async (t) => {
  const spec = normalizeTextIndex(
    { a: 1, title: 'text', z: -1 },
    { name: 'ix', weights: { title: 5.9, extra: 2 }, default_language: 'none', language_override: 'lang' }
  )
  t.same(spec.weights, { extra: 2, title: 5 }, 'weights truncated to integers, fields sorted, unlisted fields allowed')
  t.same(textIndexListing(spec).key, { a: 1, _fts: 'text', _ftsx: 1, z: -1 }, 'extra keys keep their place')
  t.equal(textIndexListing(spec).default_language, 'none')
  t.equal(textIndexListing(spec).language_override, 'lang')
  t.same(spec.extraKeys, { a: 1, z: -1 })
  const wild = normalizeTextIndex({ '$**': 'text' }, {})
  t.same(wild.weights, { '$**': 1 })
  t.equal(wild.name, '$**_text')
  t.same(normalizeTextIndex({ title: 'text' }, { weights: '$**' }).weights, { '$**': 1, title: 1 })
})

t.test('the listing normalizes back to the same spec', async (t) => {
  const spec = normalizeTextIndex({ a: 1, title: 'text', body: 'text' }, { weights: { title: 3 }, name: 'n' })
  const listed = textIndexListing(spec)
  t.same(normalizeTextIndex(listed.key, listed), spec)
})

t.test('invalid specs are refused with CannotCreateIndex', async (t) => {
  const bad: Array<[Record<string, unknown>, Record<string, unknown>, RegExp | string]> = [
    [
      { a: 'text' },
      { weights: { a: 0 } },
      'text index weight must be in the exclusive interval (0,100000) but found: 0'
    ],
    [{ a: 'text' }, { weights: { a: 100000 } }, /exclusive interval .* found: 100000/],
    [{ a: 'text' }, { weights: { a: 'high' } }, 'weight for text index needs numeric type'],
    [{ a: 'text' }, { weights: 5 }, "text index option 'weights' must be an object"],
    [{ a: 'text' }, { weights: { 'a..b': 1 } }, 'weight cannot have empty path component'],
    [{ a: 'text' }, { weights: { $x: 1 } }, 'weight cannot have path component with $ prefix'],
    [{ a: 'text' }, { default_language: 'xx' }, 'default_language is not valid'],
    [{ a: 'text' }, { default_language: 5 }, 'default_language needs a string type'],
    [{ a: 'text' }, { language_override: '$lang' }, 'language_override is not valid'],
    [{ a: 'text' }, { language_override: 'a.b' }, 'language_override is not valid'],
    [{ a: 'text' }, { language_override: 1 }, 'language_override must be a string'],
    [{ a: 'text', b: 1, c: 'text' }, {}, "'text' fields in index must all be adjacent"],
    [{ a: 2, b: 'text' }, {}, 'expected value 1 or -1 for non-text key in compound index'],
    [{ _fts: 'text' }, {}, "text index option 'weights' must specify fields or the wildcard"],
    [{ _fts: 'x', _ftsx: 1 }, {}, 'expecting _fts:"text"'],
    [{ _ftsx: 'text' }, {}, 'expecting _ftsx:1'],
    [{ _ftsx: 1, a: 'text' }, {}, 'text index with reserved fields _fts/_ftsx not allowed'],
    [{ a: 'text' }, { textIndexVersion: 9 }, 'bad textIndexVersion: 9']
  ]
  for (const [key, options, message] of bad) {
    t.throws(
      () => normalizeTextIndex(key, options),
      { code: 67, codeName: 'CannotCreateIndex', message },
      JSON.stringify([key, options])
    )
  }
  t.throws(
    () => normalizeTextIndex({ a: 'text' }, { default_language: 'french' }),
    { code: 238, codeName: 'NotImplemented' },
    'a MongoDB language devdb lacks is refused, not mis-indexed'
  )
})
