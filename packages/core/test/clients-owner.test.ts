import t from 'tap'
import { ApiClientStore } from '../src/kit.js'
import { buildCoreApp, makeUser } from './helper.js'

// The shipped example schemas: products has acl.scope.storefront = { published: true }.
t.test(
  'CONTRACT "Api clients": an owned client reads its tenant through the scope; an operator client every tenant',
  async (t) => {
    const app = await buildCoreApp(t)
    const clients = new ApiClientStore(app.svc.db)
    const alice = makeUser()
    const bob = makeUser()
    const ids: Record<string, string> = {}
    for (const [user, name, published] of [
      [alice, 'alice-live', true],
      [alice, 'alice-draft', false],
      [bob, 'bob-live', true],
      [bob, 'bob-draft', false]
    ] as const) {
      const res = await app.inject({
        method: 'POST',
        url: '/api/v1/products',
        headers: user.headers,
        payload: { name, price: 10, cost: 4, published }
      })
      t.equal(res.statusCode, 201, `create ${name}`)
      ids[name] = res.json()._id
    }
    const aliceShop = {
      'x-client-id': (await clients.create({ role: 'storefront', ownerId: alice.userId, name: "alice's shop" }))._id
    }
    const marketplace = { 'x-client-id': (await clients.create({ role: 'storefront' }))._id }
    const names = async (headers: Record<string, string>, query = ''): Promise<string[]> => {
      const res = await app.inject({ method: 'GET', url: `/api/v1/products${query}`, headers })
      t.equal(res.statusCode, 200, `list${query}`)
      return res
        .json()
        .results.map((r: { name: string }) => r.name)
        .sort()
    }

    t.same(await names(aliceShop), ['alice-live'], "owned client: its owner's published products only")
    t.same(await names(aliceShop, `?userId=${bob.userId}`), [], 'a filter on userId cannot reach another tenant')
    t.same(await names(aliceShop, '?published=false'), [], 'a filter cannot widen the scope')
    t.same(await names(marketplace), ['alice-live', 'bob-live'], "operator client: every tenant's published products")
    t.same(await names(marketplace, `?userId=${bob.userId}`), ['bob-live'], 'it may narrow to one tenant')

    for (const [label, id, status] of [
      ['own published', ids['alice-live'], 200],
      ['own draft', ids['alice-draft'], 404],
      ["another tenant's published", ids['bob-live'], 404]
    ] as const) {
      const res = await app.inject({ method: 'GET', url: `/api/v1/products/${id}`, headers: aliceShop })
      t.equal(res.statusCode, status, `owned client, get ${label}`)
      if (status === 404) t.equal(res.json().error.code, 'NOT_FOUND')
    }
    {
      const res = await app.inject({ method: 'GET', url: `/api/v1/products/${ids['alice-live']}`, headers: aliceShop })
      t.notOk('cost' in res.json(), 'field ACL applies to the client role (cost hidden)')
      const mine = await app.inject({
        method: 'GET',
        url: `/api/v1/products/${ids['alice-live']}`,
        headers: alice.headers
      })
      t.equal(mine.json().cost, 4, 'the tenant itself sees cost')
    }
    const writes: Array<[string, string, unknown]> = [
      ['POST', '/api/v1/products', { name: 'x', price: 1 }],
      ['PUT', `/api/v1/products/${ids['alice-live']}`, { price: 1 }],
      ['DELETE', `/api/v1/products/${ids['alice-live']}`, undefined],
      ['PUT', '/api/v1/products', { filter: {}, record: { price: 1 } }]
    ]
    for (const [method, url, payload] of writes) {
      const res = await app.inject({ method: method as 'POST', url, headers: aliceShop, payload: payload as object })
      t.equal(res.statusCode, 403, `${method} ${url} by an owned client`)
    }
    t.equal(await app.svc.db.collection('products').countDocuments({ price: 1 }), 0, 'nothing written')
    const other = await app.inject({ method: 'GET', url: '/api/v1/contacts', headers: aliceShop })
    t.equal(other.statusCode, 403, 'a schema without a scope for the role stays closed to an owned client')

    // The same rule in the service layer, for every surface (GraphQL, MCP) that calls it.
    const svc = app.svc.services.get('products')
    const ctx = {
      identity: { kind: 'client' as const, userId: bob.userId, roles: ['storefront'], clientId: 'cl_bob' },
      surface: 'mcp' as const
    }
    t.same(
      (await svc.list(ctx)).results.map((r) => r.name),
      ['bob-live'],
      'service list as an owned client'
    )
  }
)
