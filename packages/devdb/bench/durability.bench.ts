/**
 * Costs of the durability work, through the official driver: a record plus its audit row
 * written one after the other vs. in one transaction (in memory and journaled to a dbPath), and
 * a `^(a+)+$` regex scan over 10 000 values with the latency a second connection sees meanwhile.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { MongoClient } from 'mongodb'
import { startDevDb } from '@svc/devdb'

const WINDOW_MS = 2000

async function rate (fn: (i: number) => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 30; i++) await fn(-i - 1)
  const start = performance.now()
  let n = 0
  while (performance.now() - start < WINDOW_MS) await fn(n++)
  return Math.round(n / ((performance.now() - start) / 1000))
}

async function writes (dbPath: string | undefined): Promise<Record<string, number | string>> {
  const server = await startDevDb({ port: 0, dbPath })
  const client = await new MongoClient(server.uri).connect()
  try {
    const db = client.db('bench')
    const records = db.collection('records')
    const audit = db.collection('audit')
    const plain = await rate(async (i) => {
      const { insertedId } = await records.insertOne({ i, kind: 'plain' })
      await audit.insertOne({ of: insertedId, op: 'create' })
    })
    const session = client.startSession()
    const txn = await rate(async (i) => {
      await session.withTransaction(async () => {
        const { insertedId } = await records.insertOne({ i, kind: 'txn' }, { session })
        await audit.insertOne({ of: insertedId, op: 'create' }, { session })
      })
    })
    await session.endSession()
    return {
      storage: dbPath === undefined ? 'memory' : 'dbPath',
      'record+audit ops/s': plain,
      'same in a transaction ops/s': txn
    }
  } finally {
    await client.close()
    await server.stop()
  }
}

async function regex (): Promise<Record<string, number>> {
  const server = await startDevDb({ port: 0 })
  const a = await new MongoClient(server.uri).connect()
  const b = await new MongoClient(server.uri).connect()
  try {
    const values = a.db('bench').collection<{ _id: number; v: string }>('values')
    await values.insertMany(
      Array.from({ length: 10_000 }, (_, i) => ({ _id: i, v: 'a'.repeat(39) + (i % 1000 === 0 ? 'a' : 'b') }))
    )
    const other = b.db('bench').collection<{ _id: number }>('values')
    await other.findOne({ _id: 1 })
    const stop = new AbortController()
    const lat: number[] = []
    const probe = (async () => {
      while (!stop.signal.aborted) {
        const s = performance.now()
        await other.findOne({ _id: 7 })
        lat.push(performance.now() - s)
      }
    })()
    const s = performance.now()
    await values.find({ v: { $regex: '^(a+)+$' } }).toArray()
    const scan = performance.now() - s
    stop.abort()
    await probe
    lat.sort((x, y) => x - y)
    return {
      'regex scan ms': Math.round(scan),
      'concurrent _id reads': lat.length,
      'median ms': Math.round(lat[Math.floor(lat.length / 2)]),
      'p95 ms': Math.round(lat[Math.floor(lat.length * 0.95)])
    }
  } finally {
    await a.close()
    await b.close()
    await server.stop()
  }
}

const dir = mkdtempSync(join(tmpdir(), 'devdb-bench-'))
try {
  console.table([await writes(undefined), await writes(join(dir, 'db'))])
  console.table([await regex()])
} finally {
  rmSync(dir, { recursive: true, force: true })
}
