import t from 'tap'
import { fileURLToPath } from 'node:url'
import { buildApp, makeUser, ok, restCreate } from './helper.js'

// The repository's example CRM: nested sub-schemas, arrays, Mixed, File and Date fields.
const schemaDir = fileURLToPath(new URL('../../../schema', import.meta.url))
const { app } = await buildApp(t, { schemas: [], core: { schemaDir } })
const user = makeUser()

t.test('every field kind of the example schemas reads back typed', async (t) => {
  const co = await restCreate(app, user, 'companies', {
    name: 'Acme',
    tags: ['b2b'],
    foundedAt: '2001-02-03T00:00:00.000Z',
    address: { city: 'Paris' }
  })
  const c = await restCreate(app, user, 'contacts', {
    firstName: 'Ada',
    lastName: 'L',
    email: 'a@x.test',
    companyId: co._id,
    address: { city: 'London' },
    tags: ['vip'],
    customFields: { shoe: 42, likes: ['tea'] }
  })
  const data = await ok(
    app,
    user.headers,
    `{ contactsById(_id: "${c._id as string}") { fullName address { city } tags customFields avatar { key } company { name foundedAt tags } } }`
  )
  t.same(data.contactsById, {
    fullName: 'Ada L',
    address: { city: 'London' },
    tags: ['vip'],
    customFields: { shoe: 42, likes: ['tea'] },
    avatar: null,
    company: { name: 'Acme', foundedAt: '2001-02-03T00:00:00.000Z', tags: ['b2b'] }
  })
})

t.test("the README's mutation runs on the example deals schema", async (t) => {
  const data = await ok(
    app,
    user.headers,
    'mutation { dealsCreateOne(record: { title: "Pilot", amount: 1200 }) { recordId record { approval availableTransitions } } }'
  )
  t.same(data.dealsCreateOne.record, { approval: 'draft', availableTransitions: ['submitted'] })
})
