/**
 * `pnpm --filter @svc/devdb bench:batches`: the write shape of `svc schema apply` and of the event
 * sequencer — per record one update guarded on its state plus one inserted row, 1,000 records per
 * transaction in one bulkWrite — on 20,000 records with three secondary indexes the update leaves
 * alone and one it moves. Prints µs of the whole run per record and records per second (median of
 * three runs). BENCH_RECORDS changes the count.
 */
import { MongoClient, ObjectId, type AnyClientBulkWriteModel, type Document } from 'mongodb'
import { startDevDb } from '@svc/devdb'

const RECORDS = Number(process.env.BENCH_RECORDS ?? 20_000)
const BATCH = 1000

const server = await startDevDb({ port: 0 })
const client = await new MongoClient(server.uri).connect()
try {
  const perRecord: number[] = []
  for (let run = 0; run < 3; run++) {
    const db = client.db(`batches_${run}`)
    const deals = db.collection('deals')
    await deals.createIndex({ userId: 1, createdAt: -1, _id: -1 })
    await deals.createIndex({ userId: 1, deletedAt: 1 })
    await deals.createIndex({ title: 1 })
    await deals.createIndex({ region: 1 })
    const at = new Date()
    const docs = Array.from({ length: RECORDS }, (_, i) => ({
      _id: new ObjectId(),
      title: `deal ${i}`,
      country: i % 3 === 0 ? 'US' : 'DE',
      amount: i,
      tags: ['a', 'b'],
      notes: 'x'.repeat(200),
      userId: `tenant-${i % 100}`,
      createdAt: at,
      updatedAt: at,
      deletedAt: null
    }))
    for (let i = 0; i < RECORDS; i += 5000) await deals.insertMany(docs.slice(i, i + 5000))
    const started = performance.now()
    for (let i = 0; i < RECORDS; i += BATCH) {
      const session = client.startSession()
      try {
        await session.withTransaction(async () => {
          const models: Array<AnyClientBulkWriteModel<Document>> = docs.slice(i, i + BATCH).flatMap((d) => [
            {
              name: 'updateOne' as const,
              namespace: deals.namespace,
              filter: { _id: d._id, updatedAt: d.updatedAt },
              update: { $set: { region: d.country === 'US' ? 'americas' : 'emea', updatedAt: new Date() } }
            },
            {
              name: 'insertOne' as const,
              namespace: `${db.databaseName}.audit`,
              document: { recordId: String(d._id), action: 'migrate', at }
            }
          ])
          const res = await client.bulkWrite(models, { session, ordered: true })
          if (res.matchedCount !== models.length / 2) {
            throw new Error(`matched ${res.matchedCount} of ${models.length / 2}`)
          }
        })
      } finally {
        await session.endSession()
      }
    }
    perRecord.push(((performance.now() - started) * 1000) / RECORDS)
    await db.dropDatabase()
  }
  const us = [...perRecord].sort((a, b) => a - b)[1]
  console.log(
    `${RECORDS} records, ${BATCH} per transaction (guarded update + inserted row each): ${us.toFixed(0)} µs per record, ${Math.round(1e6 / us)} records/s (runs: ${perRecord.map((x) => x.toFixed(0)).join(', ')} µs)`
  )
} finally {
  await client.close()
  await server.stop()
}
