import { randomUUID } from 'node:crypto'
import { hostname } from 'node:os'
import type { SvcContext } from '@svc/core'
import { SmtpConnection } from './smtp-connection.js'

export type SendMail = NonNullable<SvcContext['mailer']>
export type MailMessage = Parameters<SendMail>[0]

export interface SmtpOptions {
  host: string
  /** 465 means implicit TLS; any other port starts plain and upgrades with STARTTLS when offered. */
  port: number
  user?: string
  pass?: string
  from: string
  timeoutMs?: number
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '::1'])

function assertAddress (address: string): string {
  // No CR/LF or angle brackets: an address can never smuggle an extra SMTP command or header.
  if (!/^[^\s<>@]+@[^\s<>@]+$/.test(address)) throw new Error('invalid e-mail address for SMTP')
  return address
}

function headerValue (value: string): string {
  return value.replace(/[\r\n]+/g, ' ')
}

/** RFC 5322 message with CRLF line ends and dot-stuffing for the DATA phase. */
export function formatMessage (from: string, message: MailMessage, domain: string): string {
  const head = [
    `From: ${headerValue(from)}`,
    `To: ${headerValue(message.to)}`,
    `Subject: ${headerValue(message.subject)}`,
    `Date: ${new Date().toUTCString()}`,
    `Message-ID: <${randomUUID()}@${domain}>`,
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=utf-8',
    'Content-Transfer-Encoding: 8bit'
  ]
  const body = message.text.replace(/\r?\n/g, '\r\n').split('\r\n').map((l) => (l.startsWith('.') ? `.${l}` : l))
  return [...head, '', ...body].join('\r\n')
}

/**
 * A small SMTP sender for reset mails (SMTP_HOST, SMTP_PORT, SMTP_USER, SMTP_PASS, MAIL_FROM).
 * Credentials are only sent over TLS (implicit or STARTTLS), except to a loopback relay.
 */
export function createSmtpMailer (opts: SmtpOptions): SendMail {
  const from = assertAddress(opts.from)
  const domain = from.split('@')[1]
  return async (message) => {
    const to = assertAddress(message.to)
    const implicitTls = opts.port === 465
    const conn = await SmtpConnection.open(opts.host, opts.port, { implicitTls, timeoutMs: opts.timeoutMs ?? 10_000 })
    try {
      await conn.expect([220], 'greeting')
      let ehlo = await conn.command(`EHLO ${hostname()}`, [250])
      let secure = implicitTls
      if (!secure && ehlo.lines.some((l) => /^STARTTLS\b/i.test(l))) {
        await conn.command('STARTTLS', [220])
        await conn.startTls(opts.host)
        secure = true
        ehlo = await conn.command(`EHLO ${hostname()}`, [250])
      }
      if (opts.user !== undefined) {
        if (!secure && !LOOPBACK.has(opts.host)) throw new Error('SMTP server offers no TLS: refusing to send SMTP_USER/SMTP_PASS in clear text')
        const token = Buffer.from(`\u0000${opts.user}\u0000${opts.pass ?? ''}`).toString('base64')
        await conn.command(`AUTH PLAIN ${token}`, [235], 'AUTH')
      }
      await conn.command(`MAIL FROM:<${from}>`, [250], 'MAIL FROM')
      await conn.command(`RCPT TO:<${to}>`, [250, 251], 'RCPT TO')
      await conn.command('DATA', [354])
      await conn.command(`${formatMessage(from, message, domain)}\r\n.`, [250], 'message')
      await conn.command('QUIT', [221]).catch(() => {})
    } finally {
      conn.close()
    }
  }
}
