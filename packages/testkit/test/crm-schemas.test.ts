import t from 'tap'
import { crmSchemas } from '../src/index.js'

t.test('crmSchemas: fresh objects on every call, every kind the surfaces generate from', async (t) => {
  const a = crmSchemas()
  const b = crmSchemas()
  t.not(a[0], b[0], 'no shared objects between apps')
  t.same(
    a.map((s) => s.path),
    ['companies', 'contacts', 'deals', 'products', 'logs']
  )
  t.ok(
    a.some((s) => s.relations !== undefined && Object.values(s.relations).some((r: any) => r.hasMany !== undefined)),
    'a hasMany relation'
  )
  t.ok(
    a.some((s) => s.fields.some((f: any) => f.stateMachine !== undefined)),
    'a state machine'
  )
  t.ok(
    a.some((s) => s.fields.some((f: any) => typeof f.computed === 'function')),
    'a computed field'
  )
  t.equal(
    a
      .find((s) => s.path === 'contacts')
      .fields.find((f: any) => f.name === 'fullName')
      .computed({ firstName: 'Ada', lastName: 'Lovelace' }),
    'Ada Lovelace'
  )
  t.ok(
    a.some((s) => s.acl?.scope !== undefined),
    'a scope for api clients'
  )
  t.same(
    a.find((s) => s.path === 'logs'),
    { path: 'logs', softDelete: false, audit: false, fields: [{ name: 'line', type: String, required: true }] }
  )
})
