import net from 'node:net'
import tls from 'node:tls'

export interface SmtpReply { code: number, lines: string[] }

/**
 * One SMTP client connection: line-buffered replies (multi-line `250-…` / `250 …`), commands
 * with expected codes, and an in-place STARTTLS upgrade.
 */
export class SmtpConnection {
  private socket: net.Socket
  private buffer = ''
  private pending: string[] = []
  private replies: SmtpReply[] = []
  private waiters: Array<{ resolve: (r: SmtpReply) => void, reject: (e: Error) => void }> = []
  private failure: Error | null = null

  private constructor (socket: net.Socket, private readonly timeoutMs: number) {
    this.socket = socket
    this.attach(socket)
  }

  static async open (host: string, port: number, opts: { implicitTls: boolean, timeoutMs: number }): Promise<SmtpConnection> {
    const socket = await new Promise<net.Socket>((resolve, reject) => {
      const s = opts.implicitTls
        ? tls.connect({ host, port, servername: host }, () => resolve(s))
        : net.connect({ host, port }, () => resolve(s))
      s.once('error', reject)
      s.setTimeout(opts.timeoutMs, () => s.destroy(new Error(`SMTP connection to ${host}:${port} timed out`)))
    })
    return new SmtpConnection(socket, opts.timeoutMs)
  }

  private attach (socket: net.Socket): void {
    socket.setEncoding('utf8')
    socket.on('data', (chunk: string) => this.onData(chunk))
    socket.on('error', (err) => this.fail(err))
    socket.on('close', () => this.fail(new Error('SMTP connection closed')))
  }

  private onData (chunk: string): void {
    this.buffer += chunk
    let i: number
    while ((i = this.buffer.indexOf('\r\n')) >= 0) {
      const line = this.buffer.slice(0, i)
      this.buffer = this.buffer.slice(i + 2)
      const m = /^(\d{3})([ -])(.*)$/.exec(line)
      if (m == null) { this.fail(new Error('malformed SMTP reply')); return }
      this.pending.push(m[3])
      if (m[2] === ' ') {
        const reply = { code: Number(m[1]), lines: this.pending }
        this.pending = []
        const waiter = this.waiters.shift()
        if (waiter != null) waiter.resolve(reply)
        else this.replies.push(reply)
      }
    }
  }

  private fail (err: Error): void {
    this.failure ??= err
    for (const w of this.waiters.splice(0)) w.reject(err)
  }

  async read (): Promise<SmtpReply> {
    const queued = this.replies.shift()
    if (queued != null) return queued
    if (this.failure != null) throw this.failure
    return await new Promise((resolve, reject) => this.waiters.push({ resolve, reject }))
  }

  /** Sends one command; `label` names it in errors so credentials never end up in a message. */
  async command (line: string, expect: number[], label = line.split(' ')[0]): Promise<SmtpReply> {
    if (this.failure != null) throw this.failure
    this.socket.write(`${line}\r\n`)
    return await this.expect(expect, label)
  }

  async expect (codes: number[], label: string): Promise<SmtpReply> {
    const reply = await this.read()
    if (!codes.includes(reply.code)) throw new Error(`SMTP ${label} refused: ${reply.code} ${reply.lines.join(' ').slice(0, 200)}`)
    return reply
  }

  /** Upgrades the plain connection after `STARTTLS` was accepted; certificates are verified. */
  async startTls (host: string): Promise<void> {
    const plain = this.socket
    plain.removeAllListeners('data')
    plain.removeAllListeners('close')
    plain.removeAllListeners('error')
    this.socket = await new Promise<tls.TLSSocket>((resolve, reject) => {
      const s = tls.connect({ socket: plain, servername: host }, () => resolve(s))
      s.once('error', reject)
    })
    this.socket.setTimeout(this.timeoutMs, () => this.socket.destroy(new Error('SMTP connection timed out')))
    this.attach(this.socket)
  }

  close (): void {
    this.socket.removeAllListeners('close')
    this.socket.end()
    this.socket.destroy()
  }
}
