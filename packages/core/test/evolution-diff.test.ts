import t from 'tap'
import { normalizeSchema } from '../src/schema/normalize.js'
import { snapshotModels } from '../src/schema/snapshot.js'
import { aclGaps, diffSnapshots } from '../src/evolution/diff.js'
import type { SchemaChange } from '../src/evolution/changes.js'

/** Snapshot of schema objects as core would load them (`version` from the object, default v1). */
function snap (...defs: Array<Record<string, unknown>>): ReturnType<typeof snapshotModels> {
  return snapshotModels(defs.map((d, i) => normalizeSchema(`defs[${i}]`, d, 'v1').model))
}

const base = {
  path: 'deals',
  fields: [
    { name: 'title', type: String, required: true },
    { name: 'amount', type: Number, min: 0 },
    { name: 'stage', type: String, enum: ['open', 'won', 'lost', 'stale'], default: 'open' },
    { name: 'score', type: Number },
    { name: 'legacy', type: String },
    { name: 'tags', type: [String] },
    { name: 'address', type: { city: String, zip: { type: String, required: true } } },
    {
      name: 'status',
      type: String,
      stateMachine: {
        initial: 'draft',
        states: ['draft', 'sent', 'paid'],
        transitions: { draft: ['sent'], sent: ['paid'] }
      }
    },
    { name: 'secret', type: String, acl: { read: ['admin', 'manager'] } },
    { name: 'total', type: Number, computed: (r: Record<string, unknown>) => r.amount }
  ]
}

function byKind (changes: SchemaChange[], kind: string, field?: string): SchemaChange {
  const c = changes.find((x) => x.kind === kind && (field === undefined || x.field === field))
  if (c === undefined) {
    throw new Error(`no ${kind} ${field ?? ''} in ${JSON.stringify(changes.map((x) => [x.kind, x.field]))}`)
  }
  return c
}

t.test('the same schemas: no change, the same hash', async (t) => {
  const a = snap(base)
  const b = snap(base)
  t.equal(a.hash, b.hash)
  t.same(diffSnapshots(a, b), [])
})

t.test('every field change is classified', async (t) => {
  const after = {
    path: 'deals',
    fields: [
      { name: 'title', type: String, required: true },
      { name: 'amount', type: Number, min: 10 },
      { name: 'stage', type: String, enum: ['open', 'won', 'lost'], default: 'open' },
      { name: 'score', type: String },
      { name: 'tags', type: [String], lowercase: true },
      { name: 'address', type: { city: String, zip: String, country: { type: String, required: true } } },
      {
        name: 'status',
        type: String,
        stateMachine: { initial: 'draft', states: ['draft', 'sent'], transitions: { draft: ['sent'] } }
      },
      { name: 'secret', type: String, acl: { read: ['admin'] } },
      { name: 'total', type: Number, computed: (r: Record<string, unknown>) => r.amount },
      { name: 'region', type: String, required: true },
      { name: 'pinned', type: Boolean }
    ],
    compositeIndex: [{ userId: 1, title: 1 }]
  }
  const changes = diffSnapshots(snap(base), snap(after))
  t.match(byKind(changes, 'min-raised', 'amount'), {
    class: 'needs-data',
    needsVersion: true,
    resource: 'v1/deals',
    collection: 'deals',
    paths: ['amount']
  })
  t.match(byKind(changes, 'enum-narrowed', 'stage'), { class: 'needs-data', needsVersion: true, message: /"stale"/ })
  t.match(byKind(changes, 'type-changed', 'score'), { class: 'needs-data', message: 'score: type Number → String' })
  t.match(byKind(changes, 'lowercase-added', 'tags'), { class: 'needs-data', needsVersion: false })
  t.match(byKind(changes, 'field-removed', 'legacy'), { class: 'needs-data', needsVersion: true })
  t.match(byKind(changes, 'field-added', 'region'), {
    class: 'needs-data',
    needsVersion: true,
    message: /required, no default/
  })
  t.match(byKind(changes, 'field-added', 'pinned'), { class: 'safe', needsVersion: false })
  t.match(byKind(changes, 'required-removed', 'address.zip'), { class: 'safe' })
  t.match(byKind(changes, 'field-added', 'address.country'), { class: 'needs-data', paths: ['address.country'] })
  t.match(byKind(changes, 'states-removed', 'status'), { class: 'needs-data', message: /"paid"/ })
  t.match(byKind(changes, 'read-restricted', 'secret'), { class: 'needs-version', needsVersion: true })
  t.match(byKind(changes, 'index-added'), { class: 'needs-index', index: { userId: 1, title: 1 } })
  t.notOk(
    changes.some((c) => c.field === 'total'),
    'an unchanged computed field is no change'
  )
  t.notOk(
    changes.some((c) => c.kind === 'enum-narrowed' && c.field === 'status'),
    'a state field is judged by its states, not its enum'
  )
})

t.test('safe changes, and the reverse of each breaking one', async (t) => {
  const before = {
    path: 'deals',
    fields: [
      { name: 'amount', type: Number, min: 10 },
      { name: 'stage', type: String, enum: ['open', 'won'] },
      { name: 'kind', type: String, enum: ['a'] },
      { name: 'code', type: String, lowercase: true, searchable: true },
      { name: 'req', type: String, required: true },
      { name: 'dflt', type: String, required: true, default: 'x' },
      { name: 'status', type: String, stateMachine: { initial: 'a', states: ['a'], transitions: {} } },
      { name: 'secret', type: String, acl: { read: ['admin'] } },
      { name: 'total', type: Number, computed: () => 1 },
      { name: 'n', type: Number, min: 1 }
    ],
    compositeIndex: [{ userId: 1, code: 1 }],
    relations: { owner: { belongsTo: 'deals', fk: 'code' } }
  }
  const after = {
    path: 'deals',
    softDelete: false,
    audit: false,
    fields: [
      { name: 'amount', type: Number, min: 5 },
      { name: 'stage', type: String, enum: ['open', 'won', 'lost'] },
      { name: 'kind', type: String },
      { name: 'code', type: String },
      { name: 'req', type: String },
      { name: 'dflt', type: String, required: true, default: 'y' },
      { name: 'status', type: String, stateMachine: { initial: 'a', states: ['a', 'b'], transitions: { a: ['b'] } } },
      { name: 'secret', type: String },
      { name: 'n', type: Number },
      { name: 'opt', type: String, required: true, default: 'z' }
    ]
  }
  const changes = diffSnapshots(snap(before), snap(after))
  for (const [kind, field] of [
    ['min-lowered', 'amount'],
    ['enum-widened', 'stage'],
    ['enum-removed', 'kind'],
    ['lowercase-removed', 'code'],
    ['searchable-changed', 'code'],
    ['required-removed', 'req'],
    ['default-changed', 'dflt'],
    ['states-added', 'status'],
    ['read-opened', 'secret'],
    ['min-removed', 'n'],
    ['field-added', 'opt']
  ]) {
    t.equal(byKind(changes, kind, field).class, 'safe', `${kind} ${field}`)
  }
  t.match(byKind(changes, 'field-removed', 'total'), {
    class: 'needs-version',
    message: /computed field total removed/
  })
  t.match(byKind(changes, 'index-removed'), { class: 'safe', message: /keeps it until it is dropped by hand/ })
  t.match(byKind(changes, 'soft-delete-off'), { class: 'needs-data', needsVersion: true })
  t.match(byKind(changes, 'audit-changed'), { class: 'safe', needsVersion: true })
  t.match(byKind(changes, 'relation-removed'), { class: 'needs-version' })
  const back = diffSnapshots(snap(after), snap(before))
  t.match(byKind(back, 'soft-delete-on'), { class: 'safe' })
  t.match(byKind(back, 'enum-added', 'kind'), { class: 'needs-data' })
  t.match(byKind(back, 'min-added', 'n'), { class: 'needs-data' })
  t.match(byKind(back, 'required-added', 'req'), { class: 'needs-data', message: /now required, no default/ })
  t.match(byKind(back, 'relation-added'), { class: 'safe' })
  t.match(byKind(back, 'index-added'), { class: 'needs-index' })
  t.match(byKind(back, 'field-added', 'total'), { class: 'safe', message: /computed field total added/ })
})

t.test('renames, computed switches, a removed default, aggregations', async (t) => {
  const before = {
    path: 'people',
    fields: [
      { name: 'fullName', type: String, required: true },
      { name: 'nick', type: String, required: true, default: 'n' },
      { name: 'age', type: Number },
      { name: 'label', type: String, computed: () => 'x' }
    ],
    aggregations: [{ name: 'byAge', pipeline: [{ $group: { _id: '$age', n: { $sum: 1 } } }] }]
  }
  const after = {
    path: 'people',
    fields: [
      { name: 'name', type: String, required: true },
      { name: 'nick', type: String, required: true },
      { name: 'age', type: Number, computed: () => 1 },
      { name: 'label', type: String }
    ],
    aggregations: [{ name: 'count', pipeline: [{ $count: 'n' }] }]
  }
  const changes = diffSnapshots(snap(before), snap(after))
  t.match(byKind(changes, 'field-renamed', 'name'), {
    class: 'needs-data',
    paths: ['fullName', 'name'],
    message: /fullName renamed to name\?/
  })
  t.notOk('leftBehind' in byKind(changes, 'field-renamed', 'name'), 'the new name is required: records without it fail')
  {
    const optional = diffSnapshots(
      snap({ path: 'p', fields: [{ name: 'a', type: String }] }),
      snap({ path: 'p', fields: [{ name: 'b', type: String }] })
    )
    t.equal(byKind(optional, 'field-renamed', 'b').leftBehind, true, 'an optional rename only leaves values behind')
    const hidden = diffSnapshots(
      snap({
        path: 'p',
        fields: [
          { name: 'ssn', type: String, acl: { read: ['admin'] } },
          { name: 'n', type: Number }
        ]
      }),
      snap({ path: 'p', fields: [{ name: 'n', type: Number }] })
    )
    t.match(byKind(hidden, 'field-removed', 'ssn'), {
      class: 'needs-data',
      message: /readable by \["admin"\] only until now, are no longer hidden by any acl/
    })
    t.notOk(
      'leftBehind' in byKind(hidden, 'field-removed', 'ssn'),
      'a removed ACL field blocks: its values would be shown to everyone'
    )
  }
  t.match(byKind(changes, 'required-added', 'nick'), { class: 'needs-data', message: /its default was removed/ })
  t.match(byKind(changes, 'computed-added', 'age'), { class: 'needs-version' })
  t.match(byKind(changes, 'computed-removed', 'label'), { class: 'safe' })
  t.match(byKind(changes, 'aggregation-removed'), { class: 'needs-version', message: 'aggregation byAge removed' })
  t.match(byKind(changes, 'aggregation-added'), { class: 'safe' })
  const back = diffSnapshots(snap(after), snap(before))
  t.match(byKind(back, 'required-removed', 'nick'), { class: 'safe', message: /a default "n" now fills it/ })
})

t.test('resources: added, removed, a new collection, a second version beside or instead of the first', async (t) => {
  const v1 = { path: 'deals', fields: [{ name: 'title', type: String }] }
  const v2 = {
    path: 'deals',
    version: 'v2',
    fields: [
      { name: 'title', type: String, required: true },
      { name: 'region', type: String }
    ]
  }
  {
    const changes = diffSnapshots(snap(v1), snap(v1, v2))
    t.match(byKind(changes, 'version-added'), {
      resource: 'v2/deals',
      class: 'safe',
      message: 'v2/deals added beside v1/deals (both serve collection deals)'
    })
    t.match(byKind(changes, 'required-added', 'title'), {
      resource: 'v2/deals',
      class: 'needs-data',
      needsVersion: false
    })
    t.equal(changes.length, 3, 'v1 itself is unchanged')
  }
  {
    const changes = diffSnapshots(snap(v1), snap(v2))
    t.match(byKind(changes, 'version-moved'), {
      class: 'needs-version',
      needsVersion: true,
      message: /the v1 routes are gone/
    })
    t.notOk(
      changes.some((c) => c.kind === 'resource-removed'),
      'a move is not a removal'
    )
  }
  {
    const changes = diffSnapshots(snap(v1, v2), snap(v2))
    t.match(byKind(changes, 'resource-removed'), {
      resource: 'v1/deals',
      class: 'needs-version',
      message: /its records stay in deals/
    })
  }
  {
    const changes = diffSnapshots(
      snap(v1),
      snap({ ...v1, collection: 'deals2' }, { path: 'notes', fields: [{ name: 'body', type: String }] })
    )
    t.match(byKind(changes, 'collection-changed'), { class: 'needs-data', message: /deals → deals2/ })
    t.match(byKind(changes, 'resource-added'), { resource: 'v1/notes', class: 'safe' })
  }
})

t.test('nested arrays of objects are compared item by item', async (t) => {
  const before = {
    path: 'orders',
    fields: [
      { name: 'lines', type: [{ sku: { type: String, required: true }, qty: Number }] },
      { name: 'labels', type: [String], enum: ['a', 'b'] }
    ]
  }
  const after = {
    path: 'orders',
    fields: [
      { name: 'lines', type: [{ sku: { type: String, required: true }, qty: { type: Number, min: 1 } }] },
      { name: 'labels', type: [String], enum: ['a'] }
    ]
  }
  const changes = diffSnapshots(snap(before), snap(after))
  t.match(byKind(changes, 'min-added', 'lines.qty'), { class: 'needs-data' })
  t.match(byKind(changes, 'enum-narrowed', 'labels'), { class: 'needs-data' })
  t.equal(changes.length, 2)
})

t.test('two versions on one collection: a field the newer hides must be hidden by the older too', async (t) => {
  const v1 = {
    path: 'deals',
    fields: [
      { name: 'title', type: String },
      { name: 'margin', type: Number },
      { name: 'cost', type: Number, acl: { read: ['admin'] } }
    ]
  }
  const v2 = {
    path: 'deals',
    version: 'v2',
    fields: [
      { name: 'title', type: String },
      { name: 'margin', type: Number, acl: { read: ['admin'] } },
      { name: 'cost', type: Number, acl: { read: ['admin', 'finance'] } },
      { name: 'note', type: String, acl: { read: ['admin'] } }
    ]
  }
  const gaps = aclGaps(snap(v1, v2))
  t.same(
    gaps.map((g) => [g.resource, g.kind, g.field]),
    [
      ['v2/deals', 'acl-gap', 'cost'],
      ['v1/deals', 'acl-gap', 'margin'],
      ['v1/deals', 'acl-gap', 'note']
    ],
    'each side: v2 lets finance read the cost v1 shows admins only'
  )
  t.match(
    gaps[1].message,
    /margin is readable by \["admin"\] only in v2\/deals, but v1\/deals returns it to every reader/
  )
  t.same(aclGaps(snap(v1, { ...v2, collection: 'deals_v2' })), [], 'separate collections share no records')
})
