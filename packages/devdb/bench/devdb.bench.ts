/**
 * devdb benchmark through the official driver: ops/s for insertOne, find by _id, find by
 * unique-index equality and an unindexed filter+sort+limit, then svc's tenant workload (see
 * tenant-workload.ts), on 10 000 and 100 000 documents. Indexed operations should stay flat as
 * the collection grows; the unindexed sort+limit scan should not.
 */
import { MongoClient, type Collection, type Document } from 'mongodb'
import { startDevDb } from '@svc/devdb'
import { tenantWorkload } from './tenant-workload.js'
import { engineTime } from './engine-time.js'

const SIZES = [10_000, 100_000]
const WINDOW_MS = 2000

async function measure (fn: (i: number) => Promise<unknown>): Promise<number> {
  // Warm-up, then as many sequential operations as fit in the window.
  for (let i = 0; i < 50; i++) await fn(i)
  const start = performance.now()
  let n = 0
  while (performance.now() - start < WINDOW_MS) {
    await fn(n)
    n++
  }
  return Math.round(n / ((performance.now() - start) / 1000))
}

async function load (coll: Collection<Document>, size: number): Promise<void> {
  const batch = 10_000
  for (let i = 0; i < size; i += batch) {
    await coll.insertMany(
      Array.from({ length: Math.min(batch, size - i) }, (_, j) => {
        const k = i + j
        return { _id: k, email: `user${k}@example.com`, age: k % 90, city: `c${k % 50}`, score: (k * 7919) % 100_000 }
      }) as never[]
    )
  }
}

async function main (): Promise<void> {
  const server = await startDevDb({ port: 0 })
  const client = await new MongoClient(server.uri).connect()
  const rows: Array<Record<string, string | number>> = []
  const tenantRows: Array<Record<string, string | number>> = []
  try {
    // Warm up the JIT on a small collection so the first measured size is not penalized.
    const warm = client.db('bench').collection('warmup')
    await load(warm, 2000)
    await measure(async () => await warm.findOne({ _id: Math.floor(Math.random() * 2000) as never }))
    await measure(
      async () =>
        await warm
          .find({ city: 'c1', age: { $gte: 30 } })
          .sort({ score: -1 })
          .limit(10)
          .toArray()
    )
    await warm.drop()
    await tenantWorkload(server.uri, 2000, measure)
    for (const size of SIZES) {
      const coll = client.db('bench').collection(`users_${size}`)
      await coll.createIndex({ email: 1 }, { unique: true })
      const t0 = performance.now()
      await load(coll, size)
      const loadSecs = (performance.now() - t0) / 1000
      const rand = (): number => Math.floor(Math.random() * size)
      const findById = await measure(async () => await coll.findOne({ _id: rand() as never }))
      const findByEmail = await measure(async () => await coll.findOne({ email: `user${rand()}@example.com` }))
      const sortLimit = await measure(
        async () =>
          await coll
            .find({ city: `c${rand() % 50}`, age: { $gte: 30 } })
            .sort({ score: -1 })
            .limit(10)
            .toArray()
      )
      const insertOne = await measure(
        async (i) => await coll.insertOne({ email: `new${i}-${Math.random()}@example.com`, age: i % 90 })
      )
      rows.push({
        docs: size,
        'load docs/s': Math.round(size / loadSecs),
        'insertOne ops/s': insertOne,
        'find _id ops/s': findById,
        'find unique email ops/s': findByEmail,
        'filter+sort+limit ops/s': sortLimit
      })
      await coll.drop()
      tenantRows.push({ docs: size, ...(await tenantWorkload(server.uri, size, measure)) })
    }
  } finally {
    await client.close()
    await server.stop()
  }
  console.table(rows)
  const [small, large] = rows
  const ratio = (k: string): string => (Number(large[k]) / Number(small[k])).toFixed(2)
  console.log(
    `100k/10k throughput ratio — find _id: ${ratio('find _id ops/s')}, find unique email: ${ratio('find unique email ops/s')}, filter+sort+limit: ${ratio('filter+sort+limit ops/s')} (≈1 means flat)`
  )
  console.table(tenantRows)
  const [ts, tl] = tenantRows
  const tr = (k: string): string => (Number(ts[k]) / Number(tl[k])).toFixed(2)
  const engine = []
  for (const size of SIZES) engine.push({ docs: size, ...(await engineTime(size)) })
  console.table(engine)
  console.log(
    `tenant workload, 10k/100k slowdown — list-20: ${tr('list-20 ops/s')}×, count/tenant: ${tr('count/tenant ops/s')}×, $in 200: ${tr('$in 200 ops/s')}× (goal ≤ 1.3×)`
  )
}

await main()
