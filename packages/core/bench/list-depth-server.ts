// Child process: svc on a database holding RECORDS deals of one tenant (inserted with the
// driver, shaped as svc stores them). Prints the port, a token and the cursor continuing at
// record 50,000 as one JSON line.
import { ObjectId } from 'mongodb'
import { answer, benchDatabase, benchTenant, measureRoutes, svcApp } from './bench-app.js'

const RECORDS = Number(process.argv[3] ?? 100_000)
const { client, db, commands } = await benchDatabase(process.argv[2])
const { userId, ctx, token } = benchTenant()
const app = await svcApp(db, [
  { name: 'title', type: String, required: true },
  { name: 'amount', type: Number, min: 0 }
])
measureRoutes(app, commands)
await app.ready()

const base = Date.UTC(2024, 0, 1)
for (let from = 0; from < RECORDS; from += 2000) {
  const docs = []
  for (let i = from; i < Math.min(from + 2000, RECORDS); i++) {
    const at = new Date(base + Math.floor(i / 2) * 1000) // pairs share a createdAt: ties go by _id
    docs.push({ _id: new ObjectId(), title: `deal ${i}`, amount: i % 1000, userId, createdAt: at, updatedAt: at })
  }
  await db.collection('deals').insertMany(docs)
}

// The cursor after record 50,000 (page 2,500 of 20) — issued once by offset, then reused by cursor.
const t0 = Date.now()
const deep = await app.svc.services
  .get('deals')
  .list(ctx, { perPage: 20, page: Math.floor(RECORDS / 2 / 20), count: false })
console.error(`seeded ${RECORDS} records; issuing the deep cursor by offset took ${Date.now() - t0} ms`)
await answer({ svc: app }, client, { token, cursor: deep.nextCursor, page: deep.page })
