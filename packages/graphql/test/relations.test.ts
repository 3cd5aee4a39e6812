import t from 'tap'
import { MongoClient } from 'mongodb'
import { getTestDb } from '@svc/testkit'
import { buildApp, fails, makeUser, ok, restCreate } from './helper.js'

const { uri } = await getTestDb(t)
const client = new MongoClient(uri, { monitorCommands: true })
await client.connect()
t.teardown(async () => await client.close())
const { app } = await buildApp(t, { db: client.db() })
const seen: string[] = []
// The relation queries only: a request's password-change check reads `users` once per user per
// 10 s (core's PasswordChanges), so whether it shows depends on when the test runs.
client.on('commandStarted', (e) => {
  if (e.databaseName === client.db().databaseName && e.command[e.commandName] !== 'users') {
    seen.push(`${e.commandName}:${String(e.command[e.commandName])}`)
  }
})

const alice = makeUser()
const bob = makeUser()
const manager = makeUser({ user_id: alice.userId, roles: ['user', 'manager'] })
const companies: any[] = []
for (let i = 0; i < 5; i++) companies.push(await restCreate(app, alice, 'companies', { name: `co ${i}` }))
// Created by a manager of alice's tenant: the notes are set, and hidden from alice's plain user role.
for (let i = 0; i < 20; i++) {
  await restCreate(app, manager, 'contacts', {
    firstName: `c${i}`,
    lastName: 'x',
    companyId: companies[i % 5]._id,
    primary: i < 5,
    notes: 'secret'
  })
}
// Bob's contact points at alice's company: it must never show up under it.
await restCreate(app, bob, 'contacts', { firstName: 'intruder', lastName: 'x', companyId: companies[0]._id })

t.test('nested relations: one database query per relation per level, whatever the page size', async (t) => {
  seen.length = 0
  const data = await ok(
    app,
    alice.headers,
    '{ companiesMany(limit: 5) { name contacts { firstName company { name } } primaryContact { firstName } } }'
  )
  t.equal(data.companiesMany.length, 5)
  t.ok(
    data.companiesMany.every(
      (c: any) => c.contacts.length === 4 && c.contacts.every((x: any) => x.company.name === c.name)
    ),
    'every parent fully populated, two levels deep'
  )
  t.ok(
    data.companiesMany.every((c: any) => c.primaryContact !== null),
    'hasOne with where'
  )
  t.notOk(JSON.stringify(data).includes('intruder'), "the caller's tenant is re-applied on the target")
  t.same(
    seen.sort(),
    ['find:companies', 'find:companies', 'find:contacts', 'find:contacts'],
    'page + contacts + primaryContact + one belongsTo query for all 20 contacts; no count'
  )
})

t.test('belongsTo for a page of contacts is one query', async (t) => {
  seen.length = 0
  const data = await ok(app, alice.headers, '{ contactsMany(limit: 20) { firstName company { name } } }')
  t.equal(data.contactsMany.filter((c: any) => c.company !== null).length, 20)
  t.same(seen.sort(), ['find:companies', 'find:contacts'])
})

t.test('field ACL applies to nested records', async (t) => {
  const plain = await ok(app, alice.headers, '{ companiesMany(limit: 1) { contacts { notes } } }')
  t.ok(
    plain.companiesMany[0].contacts.every((c: any) => c.notes === null),
    'notes hidden from a user without manager'
  )
  const mgr = await ok(app, manager.headers, '{ companiesMany(limit: 1) { contacts { notes } } }')
  t.ok(
    mgr.companiesMany[0].contacts.some((c: any) => c.notes === 'secret'),
    'visible to manager'
  )
})

t.test('a deleted target is hidden from relations; another tenant sees no parent', async (t) => {
  const co = await restCreate(app, alice, 'companies', { name: 'gone soon' })
  const c = await restCreate(app, alice, 'contacts', { firstName: 'linked', lastName: 'x', companyId: co._id })
  await app.inject({ method: 'DELETE', url: `/api/v1/companies/${co._id as string}`, headers: alice.headers })
  const data = await ok(app, alice.headers, `{ contactsById(_id: "${c._id as string}") { company { name } } }`)
  t.same(data.contactsById, { company: null })
  const foreign = await fails(
    app,
    bob.headers,
    `{ companiesById(_id: "${companies[0]._id as string}") { contacts { firstName } } }`
  )
  t.equal(foreign.code, 'NOT_FOUND')
})
