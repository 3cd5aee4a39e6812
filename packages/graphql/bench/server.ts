// Child process: core + @svc/graphql on the database given as argv[2], listening on 127.0.0.1.
// Prints the port, a deal id and a token as one JSON line; stops on SIGTERM.
import Fastify from 'fastify'
import { MongoClient, ObjectId } from 'mongodb'
import svcCore from '@svc/core'
import { signToken } from '@svc/testkit'
import svcGraphql from '../src/index.js'

const SECRET = 'bench-secret-0123456789abcdef0123'
const client = await new MongoClient(process.argv[2]).connect()
const userId = new ObjectId().toHexString()

const app = Fastify({ logger: false })
await app.register(svcCore, {
  db: client.db(),
  jwtSecret: SECRET,
  schemas: [
    {
      path: 'deals',
      fields: [
        { name: 'title', type: String, required: true },
        { name: 'amount', type: Number, min: 0 },
        { name: 'stage', type: String, enum: ['open', 'won', 'lost'], default: 'open' },
        { name: 'closeDate', type: Date },
        { name: 'companyId', type: String }
      ],
      relations: { company: { belongsTo: 'companies', fk: 'companyId' } }
    },
    {
      path: 'companies',
      fields: [
        { name: 'name', type: String, required: true },
        { name: 'industry', type: String }
      ]
    }
  ]
})
await app.register(svcGraphql, { production: true })
// Server-process CPU, so the benchmark can report CPU per request (steadier than req/s on a shared machine).
app.get('/cpu', async () => process.cpuUsage())
await app.ready()

const ctx = { identity: { kind: 'user' as const, userId, roles: ['user'] }, surface: 'system' as const }
const companies: string[] = []
for (let i = 0; i < 20; i++) {
  companies.push(
    (await app.svc.services.get('companies').create(ctx, { name: `company ${i}`, industry: 'software' }))._id
  )
}
let id = ''
for (let i = 0; i < 200; i++) {
  const rec = await app.svc.services.get('deals').create(ctx, {
    title: `deal ${i}`,
    amount: i * 10,
    closeDate: new Date(Date.UTC(2024, 0, 1 + i)).toISOString(),
    companyId: companies[i % 20]
  })
  if (i === 100) id = rec._id
}

await app.listen({ host: '127.0.0.1', port: 0 })
const token = signToken({ user_id: userId, email: 'bench@example.test', roles: ['user'] }, SECRET, { expiresIn: 3600 })
process.stdout.write(JSON.stringify({ port: (app.server.address() as { port: number }).port, id, token }) + '\n')
process.on('SIGTERM', () => {
  void app
    .close()
    .then(async () => await client.close())
    .then(() => process.exit(0))
})
