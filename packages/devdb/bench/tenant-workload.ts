/**
 * svc's multi-tenant hot paths on devdb, through the official driver, at 10 000 and 100 000
 * documents of 50 tenants: the newest 20 records of one tenant (index { userId: 1, createdAt: -1 }),
 * a tenant's count (countDocuments) and a `$in` of 200 values on the non-leading key of
 * { userId: 1, ref: 1 }. Each answer has the same size at both collection sizes, so an indexed
 * engine should run them at about the same rate.
 */
import { MongoClient, type Collection, type Document } from 'mongodb'

export const TENANTS = 50
const BASE = Date.UTC(2024, 0, 1)

export type Measure = (fn: (i: number) => Promise<unknown>) => Promise<number>

async function load (coll: Collection<Document>, size: number): Promise<void> {
  const batch = 10_000
  for (let i = 0; i < size; i += batch) {
    await coll.insertMany(
      Array.from({ length: Math.min(batch, size - i) }, (_, j) => {
        const k = i + j
        return {
          userId: `u${k % TENANTS}`,
          createdAt: new Date(BASE + k * 1000),
          ref: k,
          title: `event ${k}`,
          status: k % 3 === 0 ? 'open' : 'done'
        }
      })
    )
  }
}

/** 200 refs that exist for tenant t, at a random place in its range. */
function refsOf (t: number, size: number): number[] {
  const perTenant = Math.floor(size / TENANTS)
  const start = Math.floor(Math.random() * Math.max(1, perTenant - 200))
  return Array.from({ length: 200 }, (_, i) => (start + i) * TENANTS + t)
}

export async function tenantWorkload (uri: string, size: number, measure: Measure): Promise<Record<string, number>> {
  const client = await new MongoClient(uri).connect()
  try {
    const coll = client.db('bench').collection(`events_${size}`)
    await coll.createIndex({ userId: 1, createdAt: -1 })
    await coll.createIndex({ userId: 1, ref: 1 })
    await load(coll, size)
    const tenant = (): number => Math.floor(Math.random() * TENANTS)
    const list20 = await measure(
      async () =>
        await coll
          .find({ userId: `u${tenant()}` })
          .sort({ createdAt: -1 })
          .limit(20)
          .toArray()
    )
    const count = await measure(async () => await coll.countDocuments({ userId: `u${tenant()}` }))
    const in200 = await measure(async () => {
      const t = tenant()
      const refs = refsOf(t, size)
      const docs = await coll.find({ userId: `u${t}`, ref: { $in: refs } }).toArray()
      const expected = refs.filter((r) => r < size).length
      if (docs.length !== expected) throw new Error(`$in returned ${docs.length} documents, expected ${expected}`)
    })
    await coll.drop()
    return { 'list-20 ops/s': list20, 'count/tenant ops/s': count, '$in 200 ops/s': in200 }
  } finally {
    await client.close()
  }
}
