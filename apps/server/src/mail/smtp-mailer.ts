import type { ConnectionOptions } from 'node:tls'
import nodemailer from 'nodemailer'
import type { SMTPTransportOptions } from 'nodemailer/lib/smtp-transport'
import type { SvcContext } from '@svc/core'

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
  /** Extra `tls.connect` options (e.g. a private CA); certificates are always verified. */
  tls?: Pick<ConnectionOptions, 'ca' | 'servername'>
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '::1'])

/**
 * One plain address (`local@domain`), no display name and no list: no whitespace (so no CR/LF),
 * no angle brackets, and none of the characters that separate or quote addresses, so a value can
 * never smuggle an extra SMTP command, header or recipient.
 */
const SINGLE_ADDRESS = /^[^\s<>@,;:"()[\]\\]+@[^\s<>@,;:"()[\]\\]+$/

function assertAddress (address: string): string {
  if (!SINGLE_ADDRESS.test(address)) throw new Error('invalid e-mail address for SMTP')
  return address
}

/**
 * The nodemailer SMTP transport for our settings: implicit TLS on 465; elsewhere STARTTLS
 * whenever the server offers it (nodemailer's default), and required when credentials are set,
 * so SMTP_USER/SMTP_PASS never travel in clear text — except to a loopback relay.
 */
export function smtpTransportOptions (opts: SmtpOptions): SMTPTransportOptions {
  const secure = opts.port === 465
  const withAuth = opts.user !== undefined
  const timeout = opts.timeoutMs ?? 10_000
  return {
    host: opts.host,
    port: opts.port,
    secure,
    requireTLS: withAuth && !secure && !LOOPBACK.has(opts.host),
    auth: withAuth ? { user: opts.user, pass: opts.pass ?? '' } : undefined,
    tls: { ...opts.tls, rejectUnauthorized: true },
    connectionTimeout: timeout,
    greetingTimeout: timeout,
    socketTimeout: 3 * timeout,
    disableFileAccess: true,
    disableUrlAccess: true
  }
}

/** The reset-mail sender (SMTP_HOST, SMTP_PORT, SMTP_USER, SMTP_PASS, MAIL_FROM) on nodemailer. */
export function createSmtpMailer (opts: SmtpOptions): SendMail {
  const from = assertAddress(opts.from)
  const transport = nodemailer.createTransport(smtpTransportOptions(opts))
  return async (message) => {
    const to = assertAddress(message.to)
    // An explicit envelope: the recipients are exactly `to`, whatever the headers say.
    await transport.sendMail({ from, to, envelope: { from, to }, subject: message.subject, text: message.text })
  }
}
