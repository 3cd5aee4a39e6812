import { hkdfSync } from 'node:crypto'
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { PasswordChangeBroadcast, SvcAuth } from '../types.js'
import { jsonOnly } from '../http/json-only.js'
import { createAuthenticate, createIdentify } from './authenticate.js'
import { createJwtService } from './jwt.js'
import { PasswordChanges } from './password-changes.js'
import { createPasswordHasher } from './passwords.js'
import { loginRoute } from './routes/login.js'
import { passwordResetRoutes } from './routes/password-reset.js'
import { refreshRoute } from './routes/refresh.js'
import { registerRoute } from './routes/register.js'
import type { AuthDeps, SendMail } from './session.js'
import { ApiClientStore } from './stores/api-clients.js'
import { DEFAULT_REFRESH_TOKEN_TTL_SECONDS, RefreshTokenStore } from './stores/refresh-tokens.js'
import { ResetTokenStore } from './stores/reset-tokens.js'
import { UserStore } from './stores/users.js'

export { parseDuration } from './duration.js'
export { signAccessToken } from './sign-token.js'
export type { AccessClaims } from './claims.js'
export type { MailMessage, SendMail } from './session.js'
export type { PublicUser } from './public-user.js'
export { UserStore, normalizeEmail } from './stores/users.js'
export { ApiClientStore } from './stores/api-clients.js'
export { DEFAULT_REFRESH_TOKEN_TTL_SECONDS } from './stores/refresh-tokens.js'

export interface AuthPluginOptions {
  jwtSecret: string
  accessTokenTtlSeconds: number
  bcryptRounds: number
  /** Lifetime of each refresh token; default 30 days, renewed by every rotation. */
  refreshTokenTtlSeconds?: number
  /** Sends reset mails; unset, the message is logged (spec: no SMTP_HOST). */
  sendMail?: SendMail
  /** Base URL used in reset mails. */
  publicBaseUrl?: string
  /** How long another process may still accept an access token issued before a reset (ms). */
  resetStalenessMs?: number
  /** Tells the other processes of a completed reset at once. */
  passwordChangeBroadcast?: PasswordChangeBroadcast
}

async function auth (app: FastifyInstance, opts: AuthPluginOptions): Promise<void> {
  const db = app.svc.db
  const users = new UserStore(db)
  const deps: AuthDeps = {
    users,
    refreshTokens: new RefreshTokenStore(db, opts.refreshTokenTtlSeconds ?? DEFAULT_REFRESH_TOKEN_TTL_SECONDS),
    resetTokens: new ResetTokenStore(db),
    clients: new ApiClientStore(db),
    passwordChanges: new PasswordChanges(users, opts.resetStalenessMs, opts.passwordChangeBroadcast),
    passwords: await createPasswordHasher(opts.bcryptRounds),
    jwt: await createJwtService(app, opts.jwtSecret, opts.accessTokenTtlSeconds),
    accessTokenTtlSeconds: opts.accessTokenTtlSeconds,
    sendMail: opts.sendMail
  }
  await deps.users.ensureIndexes()
  await deps.refreshTokens.ensureIndexes()
  await deps.resetTokens.ensureIndexes()

  const identify = createIdentify(deps.jwt, deps.clients, deps.passwordChanges)
  const service: SvcAuth = {
    identify,
    authenticate: createAuthenticate(identify),
    mintAccessToken: (claims, ttlSeconds) => deps.jwt.sign(claims, ttlSeconds ?? opts.accessTokenTtlSeconds),
    deriveKey: (purpose) => Buffer.from(hkdfSync('sha256', opts.jwtSecret, 'svc', `svc:${purpose}`, 32))
  }
  app.svc.auth = service

  // An encapsulated child, so the JSON-only body parsing stays off the host's own routes.
  await app.register(async (routes) => {
    jsonOnly(routes)
    registerRoute(routes, deps)
    loginRoute(routes, deps)
    refreshRoute(routes, deps)
    passwordResetRoutes(routes, deps, opts.publicBaseUrl)
  })
}

export default fp(auth, { name: '@svc/core.auth', fastify: '5.x' })
