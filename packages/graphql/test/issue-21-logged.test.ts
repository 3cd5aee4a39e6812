import t from 'tap'
import { Writable } from 'node:stream'
import Fastify from 'fastify'
import svcCore from '@svc/core'
import { getTestDb } from '@svc/testkit'
import svcGraphql from '../src/index.js'
import { JWT_SECRET, gql, makeUser } from './helper.js'

// Issue 21: a resolver's 5xx answered INTERNAL and left no trace in the log (REST's are logged by
// Fastify). Now each is logged at error level with the error the client does not see.

t.test('an INTERNAL answer is logged with its cause; a 4xx is not', async (t) => {
  const { db } = await getTestDb(t)
  const lines: any[] = []
  const stream = new Writable({
    write (chunk, _enc, done) {
      lines.push(JSON.parse(String(chunk)))
      done()
    }
  })
  const app = Fastify({ logger: { level: 'info', stream } })
  await app.register(svcCore, {
    db,
    jwtSecret: JWT_SECRET,
    bcryptRounds: 4,
    schemas: [{ path: 'notes', fields: [{ name: 'title', type: String, required: true }] }]
  })
  await app.register(async (a) => {
    a.svc.services.get('notes').addDurableEffect('fragile', (r) => {
      if (r.after?.title === 'boom') throw new Error('the effect store is unreachable')
      return []
    })
  })
  await app.register(svcGraphql, {})
  t.teardown(async () => await app.close())
  await app.ready()
  const u = makeUser()

  const failed = await gql(
    app,
    u.headers,
    'mutation { notesCreateMany(records: [{ title: "ok" }, { title: "boom" }]) { recordIds } }'
  )
  t.equal(failed.errors?.[0].extensions.code, 'INTERNAL')
  const logged = lines.filter((l) => l.msg === 'graphql operation failed')
  t.equal(logged.length, 1, 'one error line')
  t.equal(logged[0].level, 50, 'at error level')
  t.match(logged[0].err.message, /the effect store is unreachable/, 'with the cause the client does not see')
  t.same(logged[0].path, ['notesCreateMany'])
  t.equal(await db.collection('notes').countDocuments(), 0, 'nothing written')

  const refused = await gql(
    app,
    u.headers,
    'mutation { notesCreateMany(records: [{ title: "a" }, { }]) { recordIds } }'
  )
  t.equal(refused.errors?.[0].extensions.code, 'VALIDATION')
  t.equal(
    lines.filter((l) => l.msg === 'graphql operation failed').length,
    1,
    'a client error is not logged as a failure'
  )

  const many = await gql(
    app,
    u.headers,
    'mutation { notesCreateMany(records: [{ title: "a" }, { title: "b" }, { title: "c" }]) { recordIds } }'
  )
  t.equal(many.errors, undefined, 'CreateMany of three records succeeds')
  t.equal(many.data.notesCreateMany.recordIds.length, 3)
})
