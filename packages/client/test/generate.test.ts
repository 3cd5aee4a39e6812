// The generator on describe documents: deterministic, refuses names it cannot give a method.
import t from 'tap'
import { generateClient, type DescribeDocument, type DescribedSchema } from '../src/generate/index.js'

function schema (path: string, over: Partial<DescribedSchema> = {}): DescribedSchema {
  return {
    version: 'v1',
    path,
    softDelete: false,
    audit: false,
    fields: [{ name: 'title', type: 'String', required: true }],
    relations: {},
    aggregations: [],
    stateMachines: {},
    fileFields: [],
    endpoints: { rest: [] },
    ...over
  }
}

const doc = (...schemas: DescribedSchema[]): DescribeDocument => ({ version: 'v1', schemas })

t.test('same schemas in any order: byte-identical output', async (t) => {
  const a = schema('alpha', {
    relations: {
      zeta: { kind: 'hasMany', target: 'beta', fk: 'alphaId' },
      beta: { kind: 'belongsTo', target: 'beta', fk: 'betaId' }
    }
  })
  const b = schema('beta', {
    aggregations: [
      { name: 'z', params: [] },
      { name: 'a', params: [{ name: 'n', type: 'Number', required: true }] }
    ]
  })
  const one = generateClient(doc(a, b))['index.ts']
  t.equal(generateClient(doc(b, a))['index.ts'], one)
  t.ok(one.indexOf('beta (id: string') < one.indexOf('zeta (id: string'), 'relations sorted')
  t.match(one, /a \(params: \{ n: number \}/, 'a required param makes params required')
  t.match(one, /z \(params\?: Record<string, never>/, 'no params: optional and empty')
  t.notMatch(one, /DEFAULT_BASE_URL/, 'no base URL unless asked')
  t.match(
    generateClient(doc(a, b), { baseUrl: 'https://api.example.test' })['index.ts'],
    /export const DEFAULT_BASE_URL = 'https:\/\/api\.example\.test'/
  )
  t.match(generateClient(doc(a), { runtime: './runtime.js' })['index.ts'], /from '\.\/runtime\.js'/)
})

t.test('names that are not identifiers are quoted; a path becomes camelCase', async (t) => {
  const out = generateClient(
    doc(
      schema('line-items', {
        fields: [
          { name: 'unit-price', type: 'Number', required: false },
          { name: "it's", type: 'String', required: false }
        ]
      })
    )
  )['index.ts']
  t.match(out, /'unit-price'\?: number/)
  t.match(out, /'it\\'s'\?: string/)
  t.match(out, /lineItems: LineItemsClient/)
  t.match(out, /lineItems: \{ version: 'v1', path: 'line-items'/)
})

t.test('only the requested version', async (t) => {
  const v2 = { ...schema('alpha'), version: 'v2' }
  t.notMatch(generateClient(doc(schema('alpha'), schema('beta'), v2))['index.ts'], /'v2'/)
  t.match(generateClient(doc(schema('beta'), v2), { version: 'v2' })['index.ts'], /version: 'v2', path: 'alpha'/)
  t.throws(() => generateClient(doc(schema('alpha')), { version: 'v3' }), /no schema of version 'v3'/)
})

t.test('refusals name the schema', async (t) => {
  t.throws(
    () => generateClient(doc(schema('a', { relations: { list: { kind: 'hasOne', target: 'a', fk: 'x' } } }))),
    /a: 'list' would name two methods/
  )
  t.throws(
    () => generateClient(doc(schema('a', { relations: { http: { kind: 'hasOne', target: 'a', fk: 'x' } } }))),
    /relation 'http' clashes/
  )
  t.throws(() => generateClient(doc(schema('auth'))), /clashes with the client's own 'auth'/)
  t.throws(
    () => generateClient(doc(schema('line-items'), schema('line_items'))),
    /'line-items' and 'line_items' would both be 'api.lineItems'/
  )
  t.throws(() => generateClient(doc(schema('a')), { baseUrl: 'localhost:3000' }), /baseUrl must be an http\(s\) URL/)
})

t.test('file and restore methods follow the routes the server registered', async (t) => {
  const s = schema('docs', {
    fileFields: ['scan', 'unserved'],
    fields: [
      { name: 'scan', type: 'File', required: false },
      { name: 'unserved', type: 'File', required: false }
    ],
    endpoints: {
      rest: [
        { method: 'POST', path: '/api/v1/docs/:id/scan' },
        { method: 'POST', path: '/api/v1/docs/:id/restore' }
      ]
    }
  })
  const out = generateClient(doc(s))['index.ts']
  t.match(out, /uploadScan \(id: string, file: Blob/)
  t.notMatch(out, /uploadUnserved/, 'no route, no method (files plugin not loaded)')
  t.match(out, /restore \(id: string/)
  t.notMatch(out, /history \(id: string/)
})

t.test('the output is formatted: two-space indentation, no trailing spaces, single blank lines', async (t) => {
  const out = generateClient(
    doc(
      schema('alpha', {
        stateMachines: { s: { initial: 'a', states: ['a', 'b'], transitions: { a: ['b'], b: [] } } },
        fields: [{ name: 's', type: 'String', required: false, enum: ['a', 'b'] }]
      }),
      schema('beta')
    )
  )['index.ts']
  const lines = out.split('\n')
  t.same(
    lines.filter((l) => /\s$/.test(l)),
    [],
    'no trailing whitespace'
  )
  t.same(
    lines.filter((l) => /^( {2})*\S/.test(l) === false && l !== ''),
    [],
    'indentation in steps of two spaces'
  )
  t.notMatch(out, /\t/, 'no tabs')
  t.notMatch(out, /\n\n\n/, 'never two blank lines')
  t.ok(out.endsWith('}\n') && !out.endsWith('\n\n'), 'one final newline')
})
