import { connect, type AddressInfo, type Socket } from 'node:net'
import t from 'tap'
import { latencyUnderAttack } from '@svc/testkit'
import { buildApp, createRecord, makeUser } from './helper.js'
import { fileForm } from './fixtures/multipart.js'
import { png } from './fixtures/content.js'

// Issue 21: after refusing an oversize upload the server kept reading (draining) the rest of the
// body. It now answers and ends the connection: the client's bytes stop costing anything.

interface Outcome {
  status: number
  closedMs: number
  sentAfterAnswer: number
}

/**
 * Sends an upload that announces 50 MB and keeps writing 64 KiB every 20 ms; reports the answer's
 * status and how long after it the server ended the connection.
 */
async function hugeUpload (port: number, authorization: string, id: string): Promise<Outcome> {
  const form = fileForm(png(128 * 1024), 'big.png')
  return await new Promise((resolve, reject) => {
    const socket: Socket = connect(port, '127.0.0.1')
    let data = ''
    let status = 0
    let answeredAt = 0
    let sentAfterAnswer = 0
    const filler = Buffer.alloc(64 * 1024, 1)
    const timer = setInterval(() => {
      if (socket.destroyed || socket.writableEnded) return
      socket.write(filler)
      if (status !== 0) sentAfterAnswer += filler.length
    }, 20)
    const giveUp = setTimeout(() => {
      socket.destroy()
      clearInterval(timer)
      reject(new Error(`the connection stayed open (answer ${status}, ${sentAfterAnswer} bytes read after it)`))
    }, 10_000)
    socket.on('data', (d) => {
      data += d.toString('latin1')
      const m = /^HTTP\/1\.1 (\d+)/.exec(data)
      if (m != null && status === 0) {
        status = Number(m[1])
        answeredAt = performance.now()
      }
    })
    socket.on('error', () => {})
    const done = (): void => {
      clearInterval(timer)
      clearTimeout(giveUp)
      resolve({ status, closedMs: performance.now() - answeredAt, sentAfterAnswer })
    }
    socket.on('end', done)
    socket.on('close', done)
    socket.write(
      `POST /api/v1/contacts/${id}/avatar HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${authorization}\r\nContent-Type: ${form.headers['content-type']}\r\nContent-Length: ${50 * 1024 * 1024}\r\n\r\n`
    )
    socket.write(form.payload)
  })
}

t.test(
  'an oversize upload is answered and its connection ended, not drained; others are served meanwhile',
  async (t) => {
    const ctx = await buildApp(t, { storage: 'local' })
    const { app } = ctx
    await app.listen({ port: 0, host: '127.0.0.1' })
    const { port } = app.server.address() as AddressInfo
    const attacker = makeUser()
    const id = await createRecord(app, attacker)
    const victim = makeUser()
    const { victimMs, attacks } = await latencyUnderAttack(
      async () => await hugeUpload(port, attacker.headers.authorization, id),
      async () => {
        const res = await fetch(`http://127.0.0.1:${port}/api/v1/contacts`, { headers: victim.headers })
        if (res.status !== 200) throw new Error(`the victim got ${res.status}`)
        await res.arrayBuffer()
      },
      { concurrency: 10 }
    )
    // A client still writing when the server closes may get a reset that discards the 400 before
    // it is read (RFC 9112 §9.6); the connection was still ended, not drained (else hugeUpload rejects).
    const answered = attacks.filter((a) => a.status !== 0)
    t.ok(answered.length > 0, `${answered.length} of ${attacks.length} read their answer before the close`)
    for (const a of answered) {
      t.equal(a.status, 400, 'refused at the limit')
      t.ok(a.closedMs < 2000, `the connection ended ${Math.round(a.closedMs)} ms after the answer`)
    }
    // Generous for a loaded 2-core CI box (2.8 s seen with 4 suites at once); a drain would hold
    // the attacks open for their 10 s give-up instead.
    t.ok(victimMs < 5000, `another client waited ${Math.round(victimMs)} ms at most`)
    t.same(await ctx.blobs(), [], 'nothing stored')
  }
)
