// Child process: the svc app and a hand-written raw-driver app (./raw-app.ts) on the same database, both
// listening on 127.0.0.1. Prints ports, the seeded record ids and a token as one JSON line.
import { ObjectId } from 'mongodb'
import { answer, benchDatabase, benchTenant, measureRoutes, SECRET, svcApp } from './bench-app.js'
import { rawApp } from './raw-app.js'

const { client, db, commands } = await benchDatabase(process.argv[2])
const { ctx, token } = benchTenant()
const svc = await svcApp(db, [
  { name: 'title', type: String, required: true },
  { name: 'amount', type: Number, min: 0 },
  { name: 'stage', type: String, enum: ['open', 'won', 'lost'], default: 'open' },
  { name: 'closeDate', type: Date }
])
await svc.ready()
// The audit row every write leaves behind, through core's durable effects (what @svc/audit
// registers): it exists iff the write committed. The hand-written writes insert the same row.
const deals = svc.svc.services.get('deals')
deals.addDurableEffect('bench-audit', (result) => [
  {
    collection: 'bench_audit',
    document: { _id: new ObjectId(), type: `deals.${result.action}`, recordId: result.recordId, at: new Date() }
  }
])

// Seed through the service so both apps read identical documents.
const ids: string[] = []
for (let i = 0; i < 200; i++) {
  const rec = await deals.create(ctx, {
    title: `deal ${i}`,
    amount: i * 10,
    closeDate: new Date(Date.UTC(2024, 0, 1 + i)).toISOString()
  })
  ids.push(rec._id)
}

const raw = await rawApp(client, db, {
  secret: SECRET,
  collection: 'deals',
  created: (body) =>
    typeof body.title === 'string' ? { title: body.title, amount: body.amount, stage: 'open' } : null,
  updated: (body) => (typeof body.amount === 'number' ? { amount: body.amount } : null),
  audit: {
    collection: 'bench_audit',
    row: (w) => ({ _id: new ObjectId(), type: `deals.${w.action}`, recordId: w.recordId, at: w.at })
  }
})
measureRoutes(raw, commands)

await answer({ svc, raw }, client, { ids, token })
