import t, { type Test } from 'tap'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { SchemaError, ValidationError } from '../src/index.js'
import { loadRegistry } from '../src/kit.js'
import { EXAMPLE_SCHEMA_DIR } from './helper.js'

const contact = (extra = ''): string =>
  `export default { path: 'contacts', collection: 'contacts', fields: [{ name: 'email', type: String, required: true }]${extra} }\n`

async function loadDir (t: Test, files: Record<string, string>): Promise<ReturnType<typeof loadRegistry>> {
  const dir = t.testdir({ versions: { v1: files } })
  return await loadRegistry({ schemaDir: dir })
}

async function loadError (t: Test, files: Record<string, string>): Promise<SchemaError> {
  try {
    await loadDir(t, files)
  } catch (err) {
    t.type(err, SchemaError, 'a SchemaError')
    return err as SchemaError
  }
  throw new Error('expected the schemas to be refused')
}

t.test('TypeScript, JavaScript and defineSchema files load the same way', async (t) => {
  const registry = await loadDir(t, {
    'contacts.ts': contact(),
    'notes.mjs': "export default { path: 'notes', collection: 'notes', fields: [{ name: 'body', type: 'String' }] }\n",
    'tags.js': "export default { path: 'tags', fields: [{ name: 'label', type: String }] }\n",
    'deals.ts':
      "import { defineSchema } from '@svc/core'\nexport default defineSchema({ path: 'deals', collection: 'deals', fields: [{ name: 'amount', type: Number, min: 0 }] })\n",
    'README.md': 'ignored',
    'types.d.ts': 'export {}'
  })
  t.same(
    registry
      .all()
      .map((m) => m.path)
      .sort(),
    ['contacts', 'deals', 'notes', 'tags']
  )
  t.equal(registry.get('v1', 'tags')?.collection, 'tags', 'collection defaults to path')
  t.equal(registry.get('v1', 'deals')?.fields[0].min, 0)
})

t.test(
  "a TypeScript schema file shares the host's @svc/core: the error classes a hook throws are core's",
  async (t) => {
    const dir = t.testdir({
      versions: {
        v1: {
          'deals.ts':
            "import { ValidationError } from '@svc/core'\nexport const Imported = ValidationError\nexport default { path: 'deals', fields: [] }\n"
        }
      }
    })
    await loadRegistry({ schemaDir: dir })
    const mod = (await import(pathToFileURL(join(dir, 'versions', 'v1', 'deals.ts')).href)) as { Imported: unknown }
    t.equal(
      mod.Imported,
      ValidationError,
      "one module instance of @svc/core (tsx's tsImport gave each schema file its own)"
    )
  }
)

t.test('the example CRM schemas load and resolve their relations', async (t) => {
  const registry = await loadRegistry({ schemaDir: EXAMPLE_SCHEMA_DIR })
  t.same(
    registry
      .all()
      .map((m) => m.path)
      .sort(),
    ['companies', 'contacts', 'deals', 'notes', 'products', 'tasks']
  )
  t.match(
    registry.get('v1', 'tasks')?.relations.deal,
    { kind: 'belongsTo', target: 'deals', fk: 'dealId' },
    'reference shorthand'
  )
  t.match(
    registry.get('v1', 'contacts')?.fieldsByPath.get('address.city'),
    { kind: 'string' },
    'nested fields indexed by path'
  )
})

t.test('field types: constructors, strings, arrays, nested objects', async (t) => {
  const registry = await loadRegistry({
    schemas: [
      {
        path: 'things',
        fields: [
          { name: 'a', type: String },
          { name: 'b', type: 'Number' },
          { name: 'c', type: Boolean },
          { name: 'd', type: 'Date' },
          { name: 'e', type: 'Mixed' },
          { name: 'f', type: 'File' },
          { name: 'g', type: [String] },
          { name: 'h', type: '[String]' },
          { name: 'i', type: { street: String, zip: { type: String, required: true } } },
          { name: 'j', type: [{ sku: String }] },
          { name: 'userId', type: String, required: true }
        ]
      }
    ]
  })
  const m = registry.get('v1', 'things')!
  t.same(
    m.fields.map((f) => f.typeName),
    ['String', 'Number', 'Boolean', 'date', 'Mixed', 'File', '[String]', '[String]', 'Object', '[Object]']
  )
  t.equal(m.fieldsByPath.get('i.zip')?.required, true)
  t.notOk(m.fieldsByPath.has('userId'), 'declared stamped fields are dropped, not client-writable')
})

t.test('unknown top-level keys are ignored and logged once at debug', async (t) => {
  const lines: unknown[] = []
  const log = { debug: (obj: unknown) => lines.push(obj) } as any
  const registry = await loadRegistry({ schemas: [{ path: 'a', fields: [], fancy: true, other: 1 }], log })
  t.ok(registry.get('v1', 'a'))
  t.same(lines, [{ keys: ['schemas[0]: fancy', 'schemas[0]: other'] }])
})

t.test('a version key places the schema under another version', async (t) => {
  const registry = await loadDir(t, { 'x.ts': "export default { path: 'x', version: 'v2', fields: [] }\n" })
  t.ok(registry.get('v2', 'x'))
  t.notOk(registry.get('v1', 'x'))
})

t.test('start-up errors name the file and the key', async (t) => {
  {
    const err = await loadError(t, { 'a.ts': contact(), 'b.ts': contact() })
    t.match(err.message, /b\.ts: path: 'contacts' is already used by .*a\.ts/, 'duplicate path')
  }
  {
    const err = await loadError(t, {
      'a.ts': contact(", relations: { company: { belongsTo: 'companie', fk: 'email' } }"),
      'c.ts': "export default { path: 'companies', fields: [] }\n"
    })
    t.match(
      err.message,
      /a\.ts: relations\.company: unknown relation target 'companie' — did you mean 'companies'\?/,
      'relation hint'
    )
  }
  {
    const err = await loadError(t, {
      'a.ts': contact(", relations: { company: { belongsTo: 'contacts', fk: 'emial' } }")
    })
    t.match(
      err.message,
      /relations\.company\.fk: 'emial' is not a field of contacts — did you mean 'email'\?/,
      'unknown fk'
    )
  }
  {
    const sm =
      "{ name: 'stage', type: String, stateMachine: { initial: 'new', states: ['new', 'won'], transitions: { new: ['lost'] } } }"
    const err = await loadError(t, { 's.ts': `export default { path: 's', fields: [${sm}] }\n` })
    t.match(
      err.message,
      /s\.ts: fields\.stage\.stateMachine\.transitions\.new: transition to undeclared state 'lost'/,
      'transition target'
    )
  }
  {
    const sm = "{ name: 'stage', type: String, stateMachine: { initial: 'draft', states: ['new'], transitions: {} } }"
    const err = await loadError(t, { 's.ts': `export default { path: 's', fields: [${sm}] }\n` })
    t.match(err.message, /fields\.stage\.stateMachine\.initial: 'draft' is not one of states/, 'initial not in states')
  }
  {
    const err = await loadError(t, {
      's.ts': "export default { path: 's', fields: [{ name: 'x', type: 'Strnig' }] }\n"
    })
    t.match(err.message, /s\.ts: fields\.x\.type: unknown type 'Strnig'/)
  }
  {
    const err = await loadError(t, { 's.ts': 'export default { fields: [] }\n' })
    t.match(err.message, /s\.ts: path: is required/)
  }
  {
    const err = await loadError(t, { 's.ts': 'export default [1, 2]\n' })
    t.match(err.message, /s\.ts: default export: must be a plain object/)
  }
  {
    const err = await loadError(t, {
      's.ts':
        "export default { path: 's', fields: [{ name: 'x', type: String }], compositeIndex: [{ userId: 1, y: 1 }] }\n"
    })
    t.match(err.message, /compositeIndex\[0\]\.y: unknown field 'y'/)
  }
  {
    const err = await loadError(t, {
      's.ts': "export default { path: 's', fields: [{ name: 'x', type: String, min: 3 }] }\n"
    })
    t.match(err.message, /fields\.x\.min: applies to Number fields only/)
  }
  {
    const err = await loadError(t, {
      's.ts': "export default { path: 's', fields: [{ name: 'x', type: String }, { name: 'x', type: Number }] }\n"
    })
    t.match(err.message, /fields\[1\]\.name: field 'x' is declared twice/)
  }
  {
    const err = await loadError(t, { 's.ts': 'export default { path: ' })
    t.match(err.message, /s\.ts: import:/, 'a syntax error names the file')
  }
})

t.test('a schema dir without versions/ is refused', async (t) => {
  const dir = t.testdir({ 'x.ts': '' })
  await t.rejects(loadRegistry({ schemaDir: dir }), /versions/)
})

t.test('field names that would clash with operators, paths or framework parameters are refused', async (t) => {
  for (const name of ['$x', 'a.b', '__page', '__proto__', '1abc', '']) {
    await t.rejects(
      loadRegistry({ schemas: [{ path: 's', fields: [{ name, type: String }] }] }),
      /must be a field name/,
      JSON.stringify(name)
    )
  }
})

t.test('enum, min and lowercase on an array field constrain its elements', async (t) => {
  const registry = await loadRegistry({
    schemas: [
      {
        path: 's',
        fields: [
          { name: 'tags', type: [String], enum: ['a', 'b'], lowercase: true },
          { name: 'scores', type: [Number], min: 1 }
        ]
      }
    ]
  })
  const m = registry.get('v1', 's')!
  t.match(m.fieldsByPath.get('tags')?.items, { enum: ['a', 'b'], lowercase: true })
  t.match(m.fieldsByPath.get('scores')?.items, { min: 1 })
  t.match(m.schemas.create, {
    properties: { tags: { items: { description: /case-insensitive/ } }, scores: { items: { minimum: 1 } } }
  })
})

t.test('relation fk defaults: the spec default, then the declared singular form', async (t) => {
  const registry = await loadRegistry({
    schemas: [
      { path: 'companies', fields: [{ name: 'name', type: String }], relations: { contacts: { hasMany: 'contacts' } } },
      {
        path: 'contacts',
        fields: [
          { name: 'companyId', type: String },
          { name: 'ownersId', type: String }
        ],
        relations: { company: { belongsTo: 'companies' }, owner: { belongsTo: 'owners' } }
      },
      { path: 'owners', fields: [{ name: 'n', type: String }] }
    ]
  })
  t.equal(registry.get('v1', 'contacts')?.relations.company.fk, 'companyId', 'belongsTo companies → companyId')
  t.equal(registry.get('v1', 'contacts')?.relations.owner.fk, 'ownersId', 'the spec default wins when declared')
  t.equal(
    registry.get('v1', 'companies')?.relations.contacts.fk,
    'companyId',
    'hasMany → the target field pointing back'
  )
  await t.rejects(
    loadRegistry({
      schemas: [
        { path: 'a', fields: [], relations: { b: { belongsTo: 'bs' } } },
        { path: 'bs', fields: [] }
      ]
    }),
    /relations\.b\.fk: 'bsId' is not a field of a/
  )
})
