import t from 'tap'
import { ApiClientStore } from '@svc/core/kit'
import { buildApp, connect, fails, makeUser, ok } from './helper.js'

// MCP twin of core's REST test (CONTRACT "Api clients"): a client with an owner reads its
// tenant's records through acl.scope; one without reads the scope across tenants.
t.test('an owned api client stays in its tenant on MCP tools; an operator client spans tenants', async (t) => {
  const { app, url } = await buildApp(t)
  const aliceUser = makeUser()
  const alice = await connect(t, url, aliceUser.headers)
  const bob = await connect(t, url, makeUser().headers)
  const mine = await ok(alice, 'create_products', { record: { name: 'alice-live', published: true } })
  await ok(alice, 'create_products', { record: { name: 'alice-draft' } })
  const theirs = await ok(bob, 'create_products', { record: { name: 'bob-live', published: true } })
  const clients = new ApiClientStore(app.svc.db)
  const shop = await connect(t, url, {
    'x-client-id': (await clients.create({ role: 'public', ownerId: aliceUser.userId }))._id
  })
  const market = await connect(t, url, { 'x-client-id': (await clients.create({ role: 'public' }))._id })

  t.same(
    (await ok(shop, 'list_products')).results.map((r: any) => r.name),
    ['alice-live'],
    "owned: the owner's published products only"
  )
  t.equal((await ok(shop, 'get_products', { id: mine._id })).name, 'alice-live')
  t.match(
    await fails(shop, 'get_products', { id: theirs._id }),
    { code: 'NOT_FOUND' },
    "another tenant's published product is not found"
  )
  t.match(
    await fails(shop, 'update_products', { id: mine._id, record: { name: 'x' } }),
    { code: 'FORBIDDEN' },
    'writes are refused'
  )
  t.same(
    (await ok(market, 'list_products')).results.map((r: any) => r.name).sort(),
    ['alice-live', 'bob-live'],
    'operator: every tenant, through the scope'
  )
})
