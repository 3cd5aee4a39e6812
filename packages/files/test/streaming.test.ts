import { connect } from 'node:net'
import type { AddressInfo } from 'node:net'
import t, { type Test } from 'tap'
import { buildApp, createRecord, makeUser, type FilesApp, type Storage, type TestUser } from './helper.js'
import { fileForm } from './fixtures/multipart.js'
import { png } from './fixtures/content.js'

// Over a real socket: what a client can do that app.inject cannot (chunked bodies, lying
// Content-Length, hanging up mid-upload).

interface RawResponse {
  status: number
  body: string
}

/** Writes `head` and `body` (in 16 KiB chunks) on a raw socket; resolves with the first response. */
async function raw (
  port: number,
  head: string,
  body: Buffer,
  opts: { chunked?: boolean; hangUpAfter?: number } = {}
): Promise<RawResponse | 'closed'> {
  return await new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1')
    let data = ''
    socket.on('data', (d) => {
      data += d.toString('latin1')
      const m = /^HTTP\/1\.1 (\d+)[\s\S]*?\r\n\r\n([\s\S]*)$/.exec(data)
      const length = /content-length: (\d+)/i.exec(data)
      if (m != null && length != null && Buffer.byteLength(m[2], 'latin1') >= Number(length[1])) {
        resolve({ status: Number(m[1]), body: m[2].slice(0, Number(length[1])) })
        socket.destroy()
      }
    })
    socket.on('error', () => {})
    socket.on('close', () => {
      resolve('closed')
    })
    socket.write(head)
    const limit = opts.hangUpAfter ?? body.length
    for (let i = 0; i < limit; i += 16 * 1024) {
      const piece = body.subarray(i, Math.min(i + 16 * 1024, limit))
      socket.write(
        opts.chunked === true
          ? Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n')])
          : piece
      )
    }
    if (opts.hangUpAfter !== undefined) setTimeout(() => socket.destroy(), 50)
    else if (opts.chunked === true) socket.write('0\r\n\r\n')
  })
}

function head (u: TestUser, id: string, contentType: string, extra: string): string {
  return `POST /api/v1/contacts/${id}/avatar HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${u.headers.authorization}\r\nContent-Type: ${contentType}\r\n${extra}\r\n`
}

async function nothingStored (t: Test, ctx: FilesApp): Promise<void> {
  // The server may still be cleaning up after a hang-up: give it a moment, boundedly.
  for (let i = 0; i < 500 && (await ctx.blobs()).length > 0; i++) {
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  t.same(await ctx.blobs(), [], 'no blob and no temp file')
  t.notOk((await ctx.db.collection('contacts').findOne({}))?.avatar, 'no metadata')
}

for (const storage of ['local', 's3'] as Storage[]) {
  t.test(`${storage}: limits hold whatever the framing says; a hang-up leaves nothing`, async (t) => {
    const ctx = await buildApp(t, { storage })
    const { app } = ctx
    await app.listen({ port: 0, host: '127.0.0.1' })
    const { port } = app.server.address() as AddressInfo
    const u = makeUser()
    const id = await createRecord(app, u)
    const big = fileForm(png(200 * 1024), 'big.png')
    {
      const res = await raw(
        port,
        head(u, id, big.headers['content-type'], 'Transfer-Encoding: chunked\r\n'),
        big.payload,
        { chunked: true }
      )
      t.not(res, 'closed', 'an answer to a chunked upload without Content-Length')
      t.equal((res as RawResponse).status, 400, 'oversize refused while streaming')
      t.match(JSON.parse((res as RawResponse).body).error, {
        code: 'VALIDATION',
        details: { recoverable: true, maxBytes: 65536 }
      })
      await nothingStored(t, ctx)
    }
    {
      const res = await raw(port, head(u, id, big.headers['content-type'], 'Content-Length: 4096\r\n'), big.payload)
      t.not(res, 'closed', 'an answer when Content-Length claims less than is sent')
      t.equal((res as RawResponse).status, 400, 'the form ends where Content-Length says: truncated, refused')
      await nothingStored(t, ctx)
    }
    {
      const res = await raw(
        port,
        head(u, id, big.headers['content-type'], `Content-Length: ${10 * 1024 * 1024}\r\n`),
        big.payload
      )
      t.not(res, 'closed', 'an answer when Content-Length claims more than is sent')
      t.equal((res as RawResponse).status, 400, 'oversize refused as soon as the limit is passed')
      await nothingStored(t, ctx)
    }
    {
      const small = fileForm(png(40 * 1024), 'small.png')
      const res = await raw(
        port,
        head(u, id, small.headers['content-type'], `Content-Length: ${small.payload.length}\r\n`),
        small.payload,
        { hangUpAfter: 20 * 1024 }
      )
      t.equal(res, 'closed', 'the client hung up mid-file')
      await nothingStored(t, ctx)
    }
    {
      const ok = fileForm(png(40 * 1024), 'ok.png')
      const res = await raw(
        port,
        head(u, id, ok.headers['content-type'], 'Transfer-Encoding: chunked\r\n'),
        ok.payload,
        { chunked: true }
      )
      t.equal((res as RawResponse).status, 200, 'a chunked upload under the limit is stored')
      t.equal(JSON.parse((res as RawResponse).body).size, 40 * 1024)
    }
  })
}
