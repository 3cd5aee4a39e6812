import type { FastifyInstance } from 'fastify'
import { ValidationError } from '../../errors.js'
import { AcceptedSchema, ForgotPasswordBody, ResetPasswordBody } from '../schemas.js'
import { DOCUMENTED, documented, OkSchema } from '../../rest/route-docs.js'
import type { AuthDeps, MailMessage } from '../session.js'
import { AUTH_LIMITED } from '../route-config.js'
import { assertPasswordBytes, assertValidBody } from '../validation.js'

/**
 * The link points at `<publicBaseUrl>/reset-password?token=…`: a page the host serves (or proxies
 * to its front end) that asks for the new password and posts `{ token, password }` to
 * `/auth/reset-password`. The API call itself is spelled out for clients without such a page.
 */
function resetMessage (to: string, token: string, publicBaseUrl?: string): MailMessage {
  const lines = [
    'Someone asked to reset the password of this account. If it was not you, ignore this message.',
    '',
    `Reset token (valid for 1 hour, single use): ${token}`
  ]
  if (publicBaseUrl !== undefined) {
    const base = publicBaseUrl.replace(/\/+$/, '')
    lines.push(
      '',
      `Reset your password: ${base}/reset-password?token=${encodeURIComponent(token)}`,
      '',
      `Or POST ${base}/auth/reset-password with { "token", "password" }`
    )
  }
  return { to, subject: 'Password reset', text: lines.join('\n') }
}

export function passwordResetRoutes (app: FastifyInstance, deps: AuthDeps, publicBaseUrl?: string): void {
  app.post<{ Body: ForgotPasswordBody }>(
    '/auth/forgot-password',
    {
      schema: documented({
        summary: 'Mail a password reset link (same answer for unknown addresses)',
        security: [],
        body: ForgotPasswordBody,
        response: { 202: AcceptedSchema }
      }),
      ...DOCUMENTED,
      attachValidation: true,
      // Each call may send a mail: limited like login, per IP and per e-mail address.
      config: AUTH_LIMITED
    },
    async (request, reply) => {
      assertValidBody(request)
      const { email } = request.body
      // Answer first and work afterwards, so neither the status nor the timing says whether the
      // address is registered.
      const work = async (): Promise<void> => {
        const user = await deps.users.findByEmail(email)
        if (user == null) return
        const token = await deps.resetTokens.issue(user._id.toHexString())
        const message = resetMessage(user.email, token, publicBaseUrl)
        // Read per request: the host may install `app.svc.mailer` after core is registered.
        const send = deps.sendMail ?? app.svc.mailer
        if (send != null) await send(message)
        // Spec: without a mail server the message body goes to the log (development only).
        else request.log.info({ mail: message }, 'password reset mail (no SMTP_HOST configured)')
      }
      work().catch((err: unknown) => request.log.error({ err }, 'password reset mail failed'))
      return await reply.code(202).send({ accepted: true })
    }
  )

  app.post<{ Body: ResetPasswordBody }>(
    '/auth/reset-password',
    {
      schema: documented({
        summary: 'Set a new password with a reset token',
        security: [],
        body: ResetPasswordBody,
        response: { 200: OkSchema }
      }),
      ...DOCUMENTED,
      attachValidation: true
    },
    async (request) => {
      assertValidBody(request)
      const { token, password } = request.body
      assertPasswordBytes(password)
      const userId = await deps.resetTokens.consume(token)
      const user = userId == null ? null : await deps.users.findById(userId)
      if (user == null) throw new ValidationError('invalid, used or expired reset token', { field: 'token' })
      await deps.users.setPasswordHash(user._id, await deps.passwords.hash(password))
      // A reset ends everything issued before it: other reset links, refresh tokens, and (through
      // passwordChangedAt) access tokens; this process stops accepting them at once, the others
      // when the broadcast reaches them (a failed broadcast leaves them the staleness bound).
      await deps.resetTokens.voidAllForUser(userId as string)
      await deps.refreshTokens.revokeAllForUser(userId as string)
      await deps.passwordChanges.changed(userId as string).catch((err: unknown) => {
        request.log.warn({ err }, 'password change broadcast failed')
      })
      return { ok: true }
    }
  )
}
