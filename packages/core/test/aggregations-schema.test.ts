import t from 'tap'
import { loadRegistry } from '../src/schema/load.js'
import { makeAggregationSchemas } from './fixtures/aggregation-schemas.js'

async function refused (t: any, extra: Record<string, unknown>, key: RegExp, why: RegExp): Promise<void> {
  const err = await loadRegistry({ schemas: makeAggregationSchemas([extra]) }).then(
    () => null,
    (e: Error) => e
  )
  t.ok(err, `refused: ${JSON.stringify(extra).slice(0, 90)}`)
  t.equal(err?.name, 'SchemaError')
  t.match(err?.message, /opts\.schemas\[0\]|schemas/, 'names the source')
  t.match(err?.message, key, 'names the key')
  t.match(err?.message, why)
}

t.test('stages and operators that could leave the tenant are refused at load', async (t) => {
  const stages = [
    '$out',
    '$merge',
    '$unionWith',
    '$lookup',
    '$graphLookup',
    '$documents',
    '$currentOp',
    '$listSessions',
    '$collStats',
    '$indexStats',
    '$planCacheStats',
    '$changeStream'
  ]
  for (const stage of stages) {
    await refused(
      t,
      { name: 'bad', pipeline: [{ $match: {} }, { [stage]: {} }] },
      /aggregations\.bad\.pipeline/,
      new RegExp(`\\${stage}`)
    )
  }
  await refused(
    t,
    { name: 'nested', pipeline: [{ $facet: { a: [{ $lookup: { from: 'users', as: 'u', pipeline: [] } }] } }] },
    /aggregations\.nested\.pipeline/,
    /\$lookup/
  )
  for (const op of ['$function', '$accumulator', '$where']) {
    await refused(
      t,
      { name: 'js', pipeline: [{ $group: { _id: null, x: { [op]: {} } } }] },
      /aggregations\.js\.pipeline/,
      new RegExp(`\\${op}`)
    )
  }
})

t.test('malformed declarations are refused naming the key', async (t) => {
  await refused(t, { name: 'x', pipeline: {} }, /aggregations\.x\.pipeline/, /array/)
  await refused(t, { name: 'x', pipeline: [{ $match: {}, $limit: 1 }] }, /pipeline\[0\]/, /one stage/)
  await refused(t, { name: 'byStage', pipeline: [] }, /aggregations\[3\]\.name/, /twice/)
  await refused(t, { name: 'x', pipeline: [], cache: { ttlSeconds: -1 } }, /cache\.ttlSeconds/, /positive/)
  await refused(t, { name: 'x', pipeline: [], unsafe: 'yes' }, /unsafe/, /boolean/)
  await refused(
    t,
    { name: 'x', pipeline: [], params: [{ name: 'p', type: Object, match: { amount: '$p' } }] },
    /params\[0\]\.type/,
    /String, Number/
  )
  await refused(
    t,
    { name: 'x', pipeline: [], params: [{ name: 'p', type: Number, match: { nope: '$p' } }] },
    /params\[0\]\.match\.nope/,
    /unknown field/
  )
  await refused(
    t,
    { name: 'x', pipeline: [], params: [{ name: 'p', type: Number, match: { amount: '$q' } }] },
    /params\[0\]\.match\.amount/,
    /placeholder/
  )
  await refused(
    t,
    { name: 'x', pipeline: [], params: [{ name: 'p', type: Number, match: { amount: 5 } }] },
    /params\[0\]\.match/,
    /never references/
  )
  await refused(
    t,
    { name: 'x', pipeline: [], params: [{ name: 'p', type: Number, match: { amount: { $where: '$p' } } }] },
    /match\.amount\.\$where/,
    /not allowed/
  )
  await refused(
    t,
    { name: 'x', pipeline: [], params: [{ name: 'p', type: Number, match: { $expr: { $gt: ['$amount', '$p'] } } }] },
    /match\.\$expr/,
    /operator-like/
  )
  await refused(
    t,
    {
      name: 'x',
      pipeline: [],
      params: [
        { name: 'p', type: Number, match: { amount: '$p' } },
        { name: 'p', type: Number, match: { amount: '$p' } }
      ]
    },
    /params/,
    /twice/
  )
})

t.test('valid declarations load', async (t) => {
  const registry = await loadRegistry({
    schemas: makeAggregationSchemas([
      {
        name: 'ors',
        pipeline: [{ $count: 'n' }],
        params: [{ name: 'p', type: 'Number', match: { $or: [{ amount: { $in: ['$p', 0] } }, { stage: 'won' }] } }]
      }
    ])
  })
  const model = registry.get('v1', 'deals')!
  t.same(
    model.aggregations.map((a) => a.name),
    ['byStage', 'total', 'everything', 'ors']
  )
  t.same(
    model.aggregations[3].params[0].match(5),
    { $or: [{ amount: { $in: [5, 0] } }, { stage: 'won' }] },
    'the value is substituted in place'
  )
})
