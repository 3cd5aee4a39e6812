import t from 'tap'
import nodemailer from 'nodemailer'
import { getTestDb, registerUser } from '@svc/testkit'
import { buildServer } from '../src/build-server.js'
import { loadConfig } from '../src/config.js'
import { createSmtpMailer, smtpTransportOptions } from '../src/mail/smtp-mailer.js'
import { startSmtpPeer, testTls } from './fixtures/smtp-peer.js'
import { workspace } from './fixtures/workspace.js'

t.test('the SMTP mailer delivers to a real local SMTP server', async (t) => {
  const smtp = await startSmtpPeer()
  t.teardown(smtp.close)
  const send = createSmtpMailer({
    host: '127.0.0.1',
    port: smtp.port,
    user: 'mailer',
    pass: 'mail-secret',
    from: 'svc@example.test'
  })
  await send({
    to: 'ada@example.test',
    subject: 'Hi\r\nBcc: evil@example.test',
    text: 'line one\n.leading dot\n.\nend'
  })
  const mail = await smtp.next()
  t.same(
    mail.envelope,
    { from: 'svc@example.test', to: ['ada@example.test'] },
    'MAIL FROM / RCPT TO: exactly the sender and the one recipient'
  )
  t.same(
    mail.auth,
    { username: 'mailer', password: 'mail-secret' },
    'AUTH in clear only because the relay is on loopback'
  )
  t.equal(mail.secure, false)
  t.equal(mail.parsed.from?.address, 'svc@example.test')
  t.same(
    mail.parsed.to?.map((a) => a.address),
    ['ada@example.test']
  )
  t.equal(mail.parsed.subject, 'Hi Bcc: evil@example.test', 'CR/LF in the subject is folded into it')
  t.notOk(
    mail.parsed.headers.some((h) => h.key === 'bcc'),
    'CR/LF in a header value cannot add a header'
  )
  t.notMatch(mail.raw, /^Bcc:/im)
  t.equal(
    mail.parsed.text?.replace(/\r?\n$/, ''),
    'line one\n.leading dot\n.\nend',
    'lines starting with a dot (and a lone dot) survive: dot-stuffing'
  )
  t.match(mail.parsed.messageId, /^<[^@\s]+@example\.test>$/, 'Message-ID in the sender domain')
  t.match(mail.raw, /^Content-Type: text\/plain; charset=utf-8\r$/im)
  t.ok(mail.parsed.date, 'Date header')

  await send({ to: 'ada@example.test', subject: 'Grüße', text: 'Übermorgen — ✓' })
  const utf8 = await smtp.next()
  t.equal(utf8.parsed.subject, 'Grüße', 'non-ASCII subject encoded (RFC 2047)')
  t.equal(utf8.parsed.text?.trimEnd(), 'Übermorgen — ✓', 'non-ASCII body')
  t.notMatch(utf8.raw.split('\r\n\r\n')[0], /[^\p{ASCII}]/u, 'headers are 7-bit')
})

t.test('only single plain addresses are accepted for to and from', async (t) => {
  const smtp = await startSmtpPeer()
  t.teardown(smtp.close)
  const send = createSmtpMailer({ host: '127.0.0.1', port: smtp.port, from: 'svc@example.test' })
  for (const to of [
    'x@y.z>\r\nRCPT TO:<evil@example.test',
    'ada@example.test\r\nBcc: evil@example.test',
    'Ada <ada@example.test>',
    'ada@example.test, evil@example.test',
    'ada,evil@example.test',
    'ada@example.test;evil@example.test',
    '"evil@example.test"@example.test',
    'no-at-sign',
    ''
  ]) {
    await t.rejects(send({ to, subject: 's', text: 't' }), /invalid e-mail address/, `refused: ${JSON.stringify(to)}`)
  }
  t.equal(smtp.mails.length, 0, 'nothing was sent')
  t.throws(() => createSmtpMailer({ host: 'h', port: 25, from: 'Svc <svc@example.test>' }), /invalid e-mail address/)
  t.throws(
    () => createSmtpMailer({ host: 'h', port: 25, from: 'svc@example.test\r\nBcc: evil@example.test' }),
    /invalid e-mail address/
  )
})

t.test('server refusals surface without the credentials', async (t) => {
  const secret = 'p4ss-word'
  const leaks = [
    secret,
    Buffer.from(`\u0000u\u0000${secret}`).toString('base64'),
    Buffer.from(secret).toString('base64')
  ]

  const noRcpt = await startSmtpPeer({ refuseRcpt: true })
  t.teardown(noRcpt.close)
  const rcptErr = await createSmtpMailer({
    host: '127.0.0.1',
    port: noRcpt.port,
    user: 'u',
    pass: secret,
    from: 'svc@example.test'
  })({ to: 'a@b.test', subject: 's', text: 't' }).catch((e: unknown) => e)
  t.type(rcptErr, Error)
  t.match(String(rcptErr), /550/, 'RCPT TO refusal surfaces')
  t.equal((rcptErr as { responseCode?: number }).responseCode, 550)

  const noAuth = await startSmtpPeer({ refuseAuth: true })
  t.teardown(noAuth.close)
  const authErr = await createSmtpMailer({
    host: '127.0.0.1',
    port: noAuth.port,
    user: 'u',
    pass: secret,
    from: 'svc@example.test'
  })({ to: 'a@b.test', subject: 's', text: 't' }).catch((e: unknown) => e)
  t.type(authErr, Error)
  t.match(String(authErr), /535|Invalid login/, 'AUTH refusal surfaces')
  t.equal(noAuth.mails.length, 0)

  for (const err of [rcptErr, authErr]) {
    const text = `${String(err)} ${JSON.stringify(err)} ${(err as Error).stack ?? ''}`
    for (const leak of leaks) t.notOk(text.includes(leak), 'the error never contains the password, plain or encoded')
  }
})

t.test('STARTTLS: used when offered, certificates verified', async (t) => {
  const smtp = await startSmtpPeer({ tls: 'starttls' })
  t.teardown(smtp.close)
  const send = createSmtpMailer({
    host: 'localhost',
    port: smtp.port,
    user: 'mailer',
    pass: 'mail-secret',
    from: 'svc@example.test',
    tls: { ca: testTls.cert }
  })
  await send({ to: 'ada@example.test', subject: 'over TLS', text: 'secret reset token' })
  const mail = await smtp.next()
  t.equal(mail.secure, true, 'the message travelled after STARTTLS')
  t.same(smtp.authAttempts, [{ username: 'mailer', secure: true }], 'AUTH only after the upgrade')
  t.equal(mail.parsed.subject, 'over TLS')

  // Without the test CA the self-signed certificate is refused: nothing is sent, no credentials.
  const untrusting = createSmtpMailer({
    host: 'localhost',
    port: smtp.port,
    user: 'mailer',
    pass: 'mail-secret',
    from: 'svc@example.test'
  })
  await t.rejects(
    untrusting({ to: 'ada@example.test', subject: 's', text: 't' }),
    /certificate/i,
    'an unverifiable certificate fails the send'
  )
  t.equal(smtp.mails.length, 1)
  t.equal(smtp.authAttempts.length, 1)
})

t.test('SMTP_PORT 465 means implicit TLS', async (t) => {
  const opts = smtpTransportOptions({
    host: 'smtp.example.test',
    port: 465,
    user: 'u',
    pass: 'p',
    from: 'svc@example.test'
  })
  t.equal(opts.secure, true)
  t.equal(smtpTransportOptions({ host: 'smtp.example.test', port: 587, from: 'svc@example.test' }).secure, false)

  // The same settings, pointed at a real implicit-TLS server on a free port.
  const smtp = await startSmtpPeer({ tls: 'implicit' })
  t.teardown(smtp.close)
  const transport = nodemailer.createTransport({
    ...smtpTransportOptions({
      host: 'localhost',
      port: 465,
      user: 'u',
      pass: 'p',
      from: 'svc@example.test',
      tls: { ca: testTls.cert }
    }),
    port: smtp.port
  })
  await transport.sendMail({ from: 'svc@example.test', to: 'ada@example.test', subject: 'implicit', text: 't' })
  const mail = await smtp.next()
  t.equal(mail.secure, true)
  t.same(smtp.authAttempts, [{ username: 'u', secure: true }])
})

t.test('credentials never go in clear text to a remote server', async (t) => {
  const remote = smtpTransportOptions({
    host: 'smtp.example.test',
    port: 587,
    user: 'u',
    pass: 'p',
    from: 'svc@example.test'
  })
  t.equal(remote.requireTLS, true, 'STARTTLS required with SMTP_USER')
  t.equal(
    smtpTransportOptions({ host: 'smtp.example.test', port: 587, from: 'svc@example.test' }).requireTLS,
    false,
    'opportunistic without credentials'
  )
  t.equal(
    smtpTransportOptions({ host: 'localhost', port: 25, user: 'u', pass: 'p', from: 'svc@example.test' }).requireTLS,
    false,
    'a loopback relay may take AUTH in clear'
  )
  t.equal(
    smtpTransportOptions({ host: 'smtp.example.test', port: 587, from: 'svc@example.test' }).auth,
    undefined,
    'no AUTH without SMTP_USER'
  )

  // The remote settings against a real server that offers no STARTTLS: refused before AUTH.
  const plain = await startSmtpPeer()
  t.teardown(plain.close)
  const transport = nodemailer.createTransport({ ...remote, host: '127.0.0.1', port: plain.port })
  await t.rejects(
    transport.sendMail({ from: 'svc@example.test', to: 'ada@example.test', subject: 's', text: 't' }),
    /STARTTLS/i
  )
  t.same(plain.authAttempts, [], 'the credentials were never sent')
  t.equal(plain.mails.length, 0)

  // Without credentials the same plain server gets the mail (STARTTLS would be used if offered).
  await createSmtpMailer({ host: '127.0.0.1', port: plain.port, from: 'svc@example.test' })({
    to: 'ada@example.test',
    subject: 's',
    text: 't'
  })
  const mail = await plain.next()
  t.equal(mail.auth, null)
})

t.test('with SMTP_HOST the server mails the reset token; the reset works', async (t) => {
  const smtp = await startSmtpPeer()
  t.teardown(smtp.close)
  const { config, problems } = loadConfig({
    NODE_ENV: 'test',
    JWT_SECRET: 'mail-test-secret',
    SCHEMA_DIR: workspace().schemaDir,
    SMTP_HOST: '127.0.0.1',
    SMTP_PORT: String(smtp.port),
    MAIL_FROM: 'no-reply@example.test',
    PUBLIC_BASE_URL: 'https://crm.example.test/'
  })
  t.same(problems, [])
  if (config == null) return
  const lines: string[] = []
  const { db } = await getTestDb(t)
  const app = await buildServer(config, {
    db,
    logger: {
      level: 'info',
      stream: {
        write: (l: string) => {
          lines.push(l)
        }
      }
    }
  })
  t.teardown(async () => await app.close())
  await app.ready()

  const user = await registerUser(app)
  const res = await app.inject({ method: 'POST', url: '/auth/forgot-password', payload: { email: user.user.email } })
  t.equal(res.statusCode, 202, 'POST /auth/forgot-password')
  const mail = await smtp.next()
  t.same(mail.envelope, { from: 'no-reply@example.test', to: [user.user.email] })
  t.equal(mail.auth, null, 'no AUTH without SMTP_USER')
  t.equal(mail.parsed.from?.address, 'no-reply@example.test')
  t.same(
    mail.parsed.to?.map((a) => a.address),
    [user.user.email]
  )
  t.equal(mail.parsed.subject, 'Password reset')
  const text = mail.parsed.text ?? ''
  const token = /token[^:]*: (\S+)/.exec(text)?.[1]
  t.ok(token, 'token in the mail')
  t.match(text, /valid for 1 hour, single use/, 'the reset text')
  const link = /https:\/\/\S+\/reset-password\?token=(\S+)/.exec(text)
  t.ok(link, 'a reset link on PUBLIC_BASE_URL')
  t.equal(
    link?.[0],
    `https://crm.example.test/reset-password?token=${encodeURIComponent(token ?? '')}`,
    'one slash, the token URL-encoded'
  )
  t.match(text, 'POST https://crm.example.test/auth/reset-password', 'the API call for clients without a reset page')
  t.notOk(
    lines.some((l) => token != null && l.includes(token)),
    'the token is not logged when mail is configured'
  )

  // The token as a reset page would read it from the link.
  const fromLink = new URL(link?.[0] ?? 'https://x.test/').searchParams.get('token')
  t.equal(fromLink, token)
  const reset = await app.inject({
    method: 'POST',
    url: '/auth/reset-password',
    payload: { token: fromLink, password: 'a-new-password' }
  })
  t.equal(reset.statusCode, 200, 'POST /auth/reset-password')
  const login = await app.inject({
    method: 'POST',
    url: '/login',
    payload: { email: user.user.email, password: 'a-new-password' }
  })
  t.equal(login.statusCode, 200, 'login with the new password')
})

t.test('SMTP_HOST without MAIL_FROM is a configuration problem', async (t) => {
  const { problems } = loadConfig({ SMTP_HOST: 'smtp.example.test' })
  t.match(problems, [/^MAIL_FROM must be set/])
})
