import t from 'tap'
import { getTestDb, registerUser } from '@svc/testkit'
import { buildServer } from '../src/build-server.js'
import { loadConfig } from '../src/config.js'
import { createSmtpMailer, formatMessage } from '../src/mail/smtp-mailer.js'
import { startSmtpCapture } from './fixtures/smtp-capture.js'
import { workspace } from './fixtures/workspace.js'

t.test('the SMTP mailer speaks SMTP to a real local server', async (t) => {
  const smtp = await startSmtpCapture()
  t.teardown(smtp.close)
  const send = createSmtpMailer({ host: '127.0.0.1', port: smtp.port, user: 'mailer', pass: 'mail-secret', from: 'svc@example.test' })
  await send({ to: 'ada@example.test', subject: 'Hi\r\nBcc: evil@example.test', text: 'line one\n.leading dot\nend' })
  const mail = await smtp.next()
  t.equal(mail.from, 'MAIL FROM:<svc@example.test>')
  t.same(mail.to, ['RCPT TO:<ada@example.test>'])
  t.equal(Buffer.from(mail.auth ?? '', 'base64').toString(), '\u0000mailer\u0000mail-secret', 'AUTH PLAIN (loopback relay)')
  t.match(mail.data, /^From: svc@example\.test\r\nTo: ada@example\.test\r\nSubject: Hi Bcc: evil@example\.test\r\n/, 'headers; CR/LF in a header value cannot add a header')
  t.match(mail.data, /\r\n\r\nline one\r\n\.\.leading dot\r\nend$/, 'CRLF body with dot-stuffing')

  await t.rejects(send({ to: 'x@y.z>\r\nRCPT TO:<evil@example.test', subject: 's', text: 't' }), /invalid e-mail address/, 'address injection refused')
  const refusing = await startSmtpCapture({ refuseRcpt: true })
  t.teardown(refusing.close)
  const err = await createSmtpMailer({ host: '127.0.0.1', port: refusing.port, user: 'u', pass: 'p4ss-word', from: 'svc@example.test' })({ to: 'a@b.test', subject: 's', text: 't' }).catch((e: Error) => e)
  t.match(String(err), /SMTP RCPT TO refused: 550/, 'server refusal surfaces')
  t.notMatch(String(err), /p4ss-word/, 'error never contains credentials')
  t.throws(() => createSmtpMailer({ host: 'h', port: 25, from: 'Svc <svc@example.test>' }), /invalid e-mail address/)
})

t.test('formatMessage', async (t) => {
  const data = formatMessage('a@b.test', { to: 'c@d.test', subject: 'S', text: 'x' }, 'b.test')
  t.match(data, /Message-ID: <[0-9a-f-]{36}@b\.test>\r\n/)
  t.match(data, /Content-Type: text\/plain; charset=utf-8\r\n/)
})

t.test('with SMTP_HOST the server mails the reset token; the reset works', async (t) => {
  const smtp = await startSmtpCapture()
  t.teardown(smtp.close)
  const { config, problems } = loadConfig({ NODE_ENV: 'test', JWT_SECRET: 'mail-test-secret', SCHEMA_DIR: workspace().schemaDir, SMTP_HOST: '127.0.0.1', SMTP_PORT: String(smtp.port), MAIL_FROM: 'no-reply@example.test' })
  t.same(problems, [])
  if (config == null) return
  const lines: string[] = []
  const { db } = await getTestDb(t)
  const app = await buildServer(config, { db, logger: { level: 'info', stream: { write: (l: string) => { lines.push(l) } } } })
  t.teardown(async () => await app.close())
  await app.ready()

  const user = await registerUser(app)
  const res = await app.inject({ method: 'POST', url: '/auth/forgot-password', payload: { email: user.user.email } })
  t.equal(res.statusCode, 202, 'POST /auth/forgot-password')
  const mail = await smtp.next()
  t.same(mail.to, [`RCPT TO:<${user.user.email}>`])
  const token = /token[^:]*: (\S+)/.exec(mail.data)?.[1]
  t.ok(token, 'token in the mail')
  t.notOk(lines.some((l) => token != null && l.includes(token)), 'the token is not logged when mail is configured')

  const reset = await app.inject({ method: 'POST', url: '/auth/reset-password', payload: { token, password: 'a-new-password' } })
  t.equal(reset.statusCode, 200, 'POST /auth/reset-password')
  const login = await app.inject({ method: 'POST', url: '/login', payload: { email: user.user.email, password: 'a-new-password' } })
  t.equal(login.statusCode, 200, 'login with the new password')
})

t.test('SMTP_HOST without MAIL_FROM is a configuration problem', async (t) => {
  const { problems } = loadConfig({ SMTP_HOST: 'smtp.example.test' })
  t.match(problems, [/^MAIL_FROM must be set/])
})
