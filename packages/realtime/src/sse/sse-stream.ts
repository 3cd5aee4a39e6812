import type { ServerResponse } from 'node:http'
import type { DeliveredEvent, FeedSink } from '../types.js'

/** How long a replay waits for a client to take a page before it counts as a slow consumer. */
const DRAIN_TIMEOUT_MS = 30_000

/**
 * One Server-Sent Events response as a feed sink. Writes go straight to the socket; a live
 * stream whose unsent bytes pass `maxBufferedBytes` (a client that stopped reading) is
 * destroyed — it resumes with `Last-Event-ID` — instead of being buffered without bound. A
 * replay waits for the socket to drain between pages.
 */
export class SseStream implements FeedSink {
  readonly #res: ServerResponse
  readonly #maxBuffered: number
  readonly #onSlow: () => void
  #lastWrite = Date.now()
  closed = false

  constructor (res: ServerResponse, opts: { maxBufferedBytes: number; onSlow: () => void }) {
    this.#res = res
    this.#maxBuffered = opts.maxBufferedBytes
    this.#onSlow = opts.onSlow
  }

  get idleMs (): number {
    return Date.now() - this.#lastWrite
  }

  deliver (event: DeliveredEvent, replay: boolean): void {
    this.#write(event.frame(), !replay)
  }

  reset (cursor: string): void {
    this.#write(
      `id: ${cursor}\nevent: reset\ndata: ${JSON.stringify({ reason: 'the cursor is past the retention window or unknown: re-read, then follow from here' })}\n\n`
    )
  }

  /** A comment line: keeps proxies and clients from timing the stream out. */
  heartbeat (): void {
    this.#write(': heartbeat\n\n')
  }

  async room (): Promise<void> {
    if (this.closed || !this.#res.writableNeedDrain) return
    await new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer)
        this.#res.off('drain', done)
        this.#res.off('close', done)
        resolve()
      }
      const timer = setTimeout(() => {
        this.#slow()
        done()
      }, DRAIN_TIMEOUT_MS)
      this.#res.on('drain', done)
      this.#res.on('close', done)
    })
  }

  end (reason: string): void {
    if (this.closed) return
    this.#write(`event: error\ndata: ${JSON.stringify({ reason })}\n\n`)
    this.close()
  }

  close (): void {
    if (this.closed) return
    this.closed = true
    this.#res.end()
  }

  /** `bounded`: a live write, refused past the buffer limit (a replay writes a page, then waits for the socket). */
  #write (text: string, bounded = true): void {
    if (this.closed) return
    this.#res.write(text)
    this.#lastWrite = Date.now()
    if (bounded && this.#res.writableLength > this.#maxBuffered) this.#slow()
  }

  #slow (): void {
    if (this.closed) return
    this.closed = true
    this.#onSlow()
    this.#res.destroy()
  }
}
