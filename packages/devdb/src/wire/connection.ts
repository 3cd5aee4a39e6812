/**
 * One client connection: frames messages, parses them, runs them strictly in order, writes replies.
 * Anything unframeable (bad length, > 48 MB) closes this connection only; unparseable BSON in a
 * framed message gets an error reply. No exception escapes to the process.
 */
import type { Socket } from 'node:net'
import type { Document } from 'bson'
import {
  encodeMsgReply,
  encodeOpReply,
  HEADER_SIZE,
  MAX_MESSAGE_SIZE,
  OP_MSG,
  OP_QUERY,
  parseMessage,
  readHeader,
  type Request
} from './messages.js'

export type RequestHandler = (req: Request) => Promise<Document>

/** Thrown by a request's handler to end the connection without a reply (mongod's failCommand closeConnection). */
export class CloseConnection extends Error {}

export function serveConnection (socket: Socket, handle: RequestHandler, onClose: () => void): void {
  let chunks: Buffer[] = []
  let buffered = 0
  let queue: Promise<void> = Promise.resolve()
  let closed = false

  const close = (): void => {
    if (closed) return
    closed = true
    socket.destroy()
  }
  socket.setNoDelay(true)
  socket.on('error', () => {
    close()
  })
  socket.on('close', () => {
    closed = true
    onClose()
  })

  socket.on('data', (chunk: Buffer) => {
    if (closed) return
    chunks.push(chunk)
    buffered += chunk.length
    while (buffered >= 4) {
      const head = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)
      chunks = [head]
      const length = head.readInt32LE(0)
      if (length < HEADER_SIZE || length > MAX_MESSAGE_SIZE) {
        close()
        return
      }
      if (buffered < length) return
      const message = head.subarray(0, length)
      const remainder = head.subarray(length)
      chunks = remainder.length > 0 ? [remainder] : []
      buffered = remainder.length
      const copy = Buffer.from(message)
      queue = queue.then(async () => {
        await process(copy)
      })
    }
  })

  async function process (message: Buffer): Promise<void> {
    if (closed) return
    const header = readHeader(message)
    let req: Request
    try {
      req = parseMessage(message)
    } catch (e) {
      if (header.opCode !== OP_MSG && header.opCode !== OP_QUERY) {
        close()
        return
      }
      const err = {
        ok: 0,
        errmsg: `invalid message: ${e instanceof Error ? e.message : String(e)}`,
        code: 22,
        codeName: 'InvalidBSON'
      }
      write(header.opCode === OP_MSG ? encodeMsgReply(header.requestId, err) : encodeOpReply(header.requestId, err))
      return
    }
    let reply: Document
    try {
      reply = await handle(req)
    } catch (e) {
      if (e instanceof CloseConnection) {
        close()
        return
      }
      reply = { ok: 0, errmsg: e instanceof Error ? e.message : String(e), code: 1, codeName: 'InternalError' }
    }
    if (req.kind === 'msg' && req.moreToCome) return
    let out: Buffer
    try {
      out =
        req.kind === 'msg' ? encodeMsgReply(req.header.requestId, reply) : encodeOpReply(req.header.requestId, reply)
    } catch (e) {
      const err = {
        ok: 0,
        errmsg: `reply could not be encoded: ${e instanceof Error ? e.message : String(e)}`,
        code: 10334,
        codeName: 'BSONObjectTooLarge'
      }
      out = req.kind === 'msg' ? encodeMsgReply(req.header.requestId, err) : encodeOpReply(req.header.requestId, err)
    }
    write(out)
  }

  function write (buf: Buffer): void {
    if (!closed) socket.write(buf)
  }
}
