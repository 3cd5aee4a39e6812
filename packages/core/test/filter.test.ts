import t from 'tap'
import { ObjectId } from 'mongodb'
import { filterableFields, loadRegistry } from '../src/kit.js'
import { buildFilter, buildPaging, buildSort } from '../src/service/filter.js'

const registry = await loadRegistry({
  schemas: [
    {
      path: 'items',
      fields: [
        { name: 'name', type: String },
        { name: 'email', type: String, lowercase: true },
        { name: 'qty', type: Number },
        { name: 'active', type: Boolean },
        { name: 'due', type: Date },
        { name: 'tags', type: [String] },
        { name: 'address', type: { city: String } },
        { name: 'meta', type: 'Mixed' },
        { name: 'status', type: String, enum: ['open', 'done'] },
        { name: 'labels', type: [String], enum: ['red', 'blue'], lowercase: true }
      ]
    }
  ]
})
const model = registry.get('v1', 'items')!
const refused = (raw: Record<string, unknown>): unknown => {
  try {
    buildFilter(model, raw)
  } catch (err) {
    return {
      status: (err as { statusCode: number }).statusCode,
      code: (err as { code: string }).code,
      message: (err as Error).message
    }
  }
  return null
}

t.test('equality values are cast to the field type', async (t) => {
  const id = new ObjectId()
  const f = buildFilter(model, {
    name: 'x',
    qty: '5',
    active: 'false',
    due: '2024-05-01',
    _id: id.toHexString(),
    email: 'A@B.C',
    tags: 'vip',
    'address.city': 'Oslo'
  })
  t.same(f, {
    name: 'x',
    qty: 5,
    active: false,
    due: new Date('2024-05-01'),
    _id: id,
    email: 'a@b.c',
    tags: 'vip',
    'address.city': 'Oslo'
  })
  t.type(f._id, ObjectId)
  t.type(f.due, Date)
})

t.test('operator objects: allow-listed operators, JSON text decoded, values cast', async (t) => {
  const f = buildFilter(model, {
    qty: '{"$gte":"2","$lt":10}',
    name: { $in: ['a', 'b'] },
    email: { $regex: '^A', $options: 'i' },
    due: { $gt: '2024-01-01T00:00:00Z' },
    active: { $ne: 'true' }
  })
  t.same(f, {
    qty: { $gte: 2, $lt: 10 },
    name: { $in: ['a', 'b'] },
    email: { $regex: '^A', $options: 'i' },
    due: { $gt: new Date('2024-01-01T00:00:00Z') },
    active: { $ne: true }
  })
})

t.test('enum values: exact matches must be possible values; ranges are not checked', async (t) => {
  t.same(buildFilter(model, { status: 'open', labels: 'RED' }), { status: 'open', labels: 'red' })
  t.same(buildFilter(model, { status: { $in: ['open', 'done'] }, labels: { $ne: 'blue' } }), {
    status: { $in: ['open', 'done'] },
    labels: { $ne: 'blue' }
  })
  t.same(buildFilter(model, { status: { $gte: 'a' } }), { status: { $gte: 'a' } })
  t.match(refused({ status: 'opne' }), { status: 400, message: /not one of status's values: open, done/ })
  t.match(refused({ status: { $in: ['open', 'x'] } }), { status: 400 })
  t.match(refused({ labels: 'green' }), { status: 400 })
})

t.test('everything outside the allow-list is a 400 VALIDATION', async (t) => {
  const cases: Array<[string, Record<string, unknown>]> = [
    ['$where', { $where: 'sleep(1000)' }],
    ['$expr', { $expr: { $gt: ['$qty', 1] } }],
    ['$function inside a field', { qty: { $function: { body: 'x' } } }],
    ['$jsonSchema', { $jsonSchema: {} }],
    ['$or', { $or: [{ name: 'a' }] }],
    ['operator inside key', { 'name.$ne': 'x' }],
    ['$where as JSON text', { qty: '{"$where":"1"}' }],
    ['$elemMatch', { tags: { $elemMatch: { $ne: 1 } } }],
    ['$exists', { name: { $exists: true } }],
    ['unknown field', { nope: 'x' }],
    ['Mixed field', { meta: 'x' }],
    ['sub-path of Mixed', { 'meta.a': 'x' }],
    ['nested object as equality', { address: 'x' }],
    ['non-numeric number', { qty: 'abc' }],
    ['bad boolean', { active: 'yes' }],
    ['bad date', { due: 'tomorrow' }],
    ['malformed _id', { _id: 'zz' }],
    ['bad JSON', { qty: '{"$gt":' }],
    ['$in not an array', { qty: { $in: 5 } }],
    ['$regex on a number', { qty: { $regex: '1' } }],
    ['$options without $regex', { name: { $options: 'i' } }],
    ['$options with bad flags', { name: { $regex: 'a', $options: 'g' } }],
    ['invalid regex', { name: { $regex: '(' } }],
    ['array equality', { name: ['a', 'b'] }],
    ['nested operator object value', { qty: { $gt: { $gt: 1 } } }]
  ]
  for (const [label, raw] of cases) t.match(refused(raw), { status: 400, code: 'VALIDATION' }, label)
})

t.test('sort: multi-key, default createdAt desc, _id tiebreaker, refusals', async (t) => {
  t.same(buildSort(model, undefined), { createdAt: -1, _id: -1 })
  t.same(buildSort(model, 'qty:asc,name:desc'), { qty: 1, name: -1, _id: 1 })
  t.same(Object.keys(buildSort(model, 'name,qty:desc')), ['name', 'qty', '_id'], 'order preserved')
  for (const bad of ['nope:asc', 'qty:up', 'qty:asc:x', '$where:asc', 'meta:asc', 'qty,qty']) {
    t.throws(() => buildSort(model, bad), { statusCode: 400 } as any, bad)
  }
})

t.test('paging: defaults, cap at 200, refusals', async (t) => {
  t.same(buildPaging(undefined, undefined, 20), { page: 1, perPage: 20, skip: 0 })
  t.same(buildPaging(3, 500, 20), { page: 3, perPage: 200, skip: 400 })
  for (const [p, pp] of [
    [0, 10],
    [1, 0],
    [1.5, 10],
    ['x', 10]
  ]) {
    t.throws(() => buildPaging(p, pp, 20), { statusCode: 400 } as any)
  }
})

t.test('deletedAt filters and sorts on a soft-delete schema only', async (t) => {
  const both = await loadRegistry({
    schemas: [
      { path: 'kept', fields: [{ name: 'name', type: String }] },
      { path: 'gone', softDelete: false, fields: [{ name: 'name', type: String }] }
    ]
  })
  const kept = both.get('v1', 'kept')!
  const gone = both.get('v1', 'gone')!
  t.same(
    buildFilter(kept, { deletedAt: '{"$gte":"1970-01-01T00:00:00Z"}' }),
    { deletedAt: { $gte: new Date(0) } },
    'a range, cast to a date'
  )
  t.same(buildSort(kept, 'deletedAt:desc'), { deletedAt: -1, _id: -1 })
  t.match(
    filterableFields(kept).find((f) => f.path === 'deletedAt'),
    { kind: 'date', system: true },
    'listed with the system fields'
  )
  t.throws(() => buildFilter(kept, { deletedAt: 'yesterday' }), { statusCode: 400, message: /not a valid date/ })
  t.throws(
    () => buildFilter(gone, { deletedAt: { $gte: '1970-01-01' } }),
    { statusCode: 400, message: /unknown field 'deletedAt'/ },
    'hard delete: no such field'
  )
  t.throws(() => buildSort(gone, 'deletedAt:asc'), { statusCode: 400 } as any)
  t.notOk(filterableFields(gone).some((f) => f.path === 'deletedAt'))
})
