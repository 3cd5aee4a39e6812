import t from 'tap'
import { buildApp, connect, fails, makeUser, ok } from './helper.js'

// aggregate_<path>_<name>: declared params typed as arguments, cast and validated by core.

t.test('params narrow the aggregation; bad params are tool errors', async (t) => {
  const { url } = await buildApp(t)
  const client = await connect(t, url, makeUser().headers)
  const deals = [
    { title: 'a', amount: 100, stage: 'won', closeDate: '2024-01-10' },
    { title: 'b', amount: 300, stage: 'won', closeDate: '2024-03-01' },
    { title: 'c', amount: 50, stage: 'lost', closeDate: '2024-02-01' }
  ]
  for (const record of deals) await ok(client, 'create_deals', { record })
  t.same(
    (await ok(client, 'aggregate_deals_byStage')).results,
    [
      { _id: 'lost', count: 1, total: 50 },
      { _id: 'won', count: 2, total: 400 }
    ],
    'no params'
  )
  t.same(
    (await ok(client, 'aggregate_deals_byStage', { minAmount: 100 })).results,
    [{ _id: 'won', count: 2, total: 400 }],
    'a Number param'
  )
  t.same(
    (await ok(client, 'aggregate_deals_byStage', { closingAfter: '2024-02-15', minAmount: 0 })).results,
    [{ _id: 'won', count: 1, total: 300 }],
    'a Date param'
  )
  t.match(
    await fails(client, 'aggregate_deals_byStage', { minAmount: 'lots' }),
    { code: 'VALIDATION', details: { field: 'minAmount' } },
    'a wrong type'
  )
  t.match(
    await fails(client, 'aggregate_deals_byStage', { closingAfter: 'yesterday' }),
    { code: 'VALIDATION', details: { field: 'closingAfter' } },
    'a bad date'
  )
  t.match(
    await fails(client, 'aggregate_deals_byStage', { region: 'eu' }),
    { code: 'VALIDATION', details: { field: 'region' } },
    'an undeclared param'
  )
  const text = (await client.callTool({ name: 'aggregate_deals_byStage', arguments: {} })).content as any
  t.match(text[0].text, /^2 rows from byStage of deals\n\{"results":/, 'a summary line, then the data as JSON')
})

t.test('deleted records are left out, as on REST', async (t) => {
  const { url } = await buildApp(t)
  const client = await connect(t, url, makeUser().headers)
  const deal = await ok(client, 'create_deals', { record: { title: 'a', amount: 10 } })
  await ok(client, 'create_deals', { record: { title: 'b', amount: 5 } })
  await ok(client, 'delete_deals', { id: deal._id })
  t.same((await ok(client, 'aggregate_deals_byStage')).results, [{ _id: 'open', count: 1, total: 5 }])
})
