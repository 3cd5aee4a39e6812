import t from 'tap'
import { isInputObjectType, type GraphQLEnumType, type GraphQLInputObjectType } from 'graphql'
import { FILTER_OPERATORS, filterableFields } from '@svc/core/kit'
import { buildSchema } from '../src/index.js'
import { buildApp, fails, makeUser, ok, restCreate } from './helper.js'

// Issue 21: the filter vocabulary is core's (`filterableFields`, FILTER_OPERATORS); GraphQL only
// spells it: nested paths as nested inputs, operators without `$`.

const places = {
  path: 'places',
  fields: [
    { name: 'name', type: String, required: true },
    { name: 'address', type: { city: { type: String }, zip: { type: Number } } },
    { name: 'tags', type: [String] },
    { name: 'stops', type: [{ label: { type: String }, order: { type: Number } }] },
    { name: 'label', type: String, computed: (r: Record<string, unknown>) => `#${String(r.name)}` }
  ]
}

/** Dotted paths an input type (and its nested inputs) names, leaving out `_operators`. */
function paths (type: GraphQLInputObjectType, prefix = ''): string[] {
  const out: string[] = []
  for (const [name, f] of Object.entries(type.getFields())) {
    if (name === '_operators') continue
    const p = prefix === '' ? name : `${prefix}.${name}`
    if (isInputObjectType(f.type)) out.push(...paths(f.type, p))
    else out.push(p)
  }
  return out
}

t.test('the filter input names exactly the keys core filters on', async (t) => {
  const { app } = await buildApp(t, { schemas: [places] })
  const { schema } = buildSchema(app.svc)
  const model = app.svc.registry.all()[0]
  const filter = schema.getType('PlacesFilter') as GraphQLInputObjectType
  t.same(
    paths(filter).sort(),
    filterableFields(model)
      .map((f) => f.path)
      .sort(),
    'nested paths and the tenant keys included, computed fields left out'
  )
  const ops = schema.getType('StringOperators') as GraphQLInputObjectType
  t.same(
    Object.keys(ops.getFields()).sort(),
    FILTER_OPERATORS.map((o) => o.slice(1)).sort(),
    "core's operators, without $"
  )
  const sort = schema.getType('PlacesSort') as GraphQLEnumType
  t.ok(
    sort.getValues().some((v) => v.name === 'address__city_ASC'),
    'a nested path sorts as address__city'
  )
})

t.test('nested paths and the tenant keys filter and sort as on REST', async (t) => {
  const { app } = await buildApp(t, { schemas: [places] })
  const u = makeUser()
  await restCreate(app, u, 'places', {
    name: 'a',
    address: { city: 'Paris', zip: 75001 },
    stops: [{ label: 'x', order: 1 }]
  })
  await restCreate(app, u, 'places', {
    name: 'b',
    address: { city: 'Lyon', zip: 69001 },
    stops: [{ label: 'y', order: 2 }]
  })
  const names = async (args: string): Promise<string[]> =>
    (await ok(app, u.headers, `{ placesMany(${args}) { name } }`)).placesMany.map((p: { name: string }) => p.name)
  t.same(await names('filter: { address: { city: "Paris" } }'), ['a'], 'equality on address.city')
  t.same(await names('filter: { _operators: { address: { zip: { gte: 69500 } } } }'), ['a'], 'operators on address.zip')
  t.same(await names('filter: { stops: { label: "y" } }'), ['b'], 'a path inside an array of sub-documents')
  t.same(await names('sort: [address__city_ASC]'), ['b', 'a'], 'sorted by address.city')
  t.same(
    await names(`filter: { userId: "${u.userId}" }`),
    ['b', 'a'],
    'the tenant key filters (inside the tenant, as on REST)'
  )
  t.same(await names('filter: { userId: "someone-else" }'), [], "another tenant's id matches nothing of yours")
  const both = await fails(
    app,
    u.headers,
    '{ placesMany(filter: { address: { city: "Paris" }, _operators: { address: { city: { ne: "Lyon" } } } }) { name } }'
  )
  t.match(
    both,
    { code: 'VALIDATION', details: { field: 'address.city' } },
    'a value and operators for one path are refused'
  )
})
