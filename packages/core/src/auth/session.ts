import type { JwtService } from './jwt.js'
import type { PasswordChanges } from './password-changes.js'
import type { PasswordHasher } from './passwords.js'
import type { UserDoc } from './public-user.js'
import type { ApiClientStore } from './stores/api-clients.js'
import type { RefreshTokenStore } from './stores/refresh-tokens.js'
import type { ResetTokenStore } from './stores/reset-tokens.js'
import type { UserStore } from './stores/users.js'

/** An outgoing message; without a configured mailer its text is written to the log (spec). */
export interface MailMessage {
  to: string
  subject: string
  text: string
}
export type SendMail = (message: MailMessage) => Promise<void>

/** Everything the auth routes share, built once in ./index.ts. */
export interface AuthDeps {
  users: UserStore
  refreshTokens: RefreshTokenStore
  resetTokens: ResetTokenStore
  clients: ApiClientStore
  passwordChanges: PasswordChanges
  passwords: PasswordHasher
  jwt: JwtService
  accessTokenTtlSeconds: number
  sendMail?: SendMail
}

export function accessTokenFor (deps: AuthDeps, user: UserDoc): string {
  return deps.jwt.sign(
    { user_id: user._id.toHexString(), email: user.email, roles: user.roles },
    deps.accessTokenTtlSeconds
  )
}

/** A fresh login: an access token plus a refresh token starting a new family. */
export async function startSession (
  deps: AuthDeps,
  user: UserDoc
): Promise<{ accessToken: string; refreshToken: string }> {
  const refreshToken = await deps.refreshTokens.issue(user._id.toHexString())
  return { accessToken: accessTokenFor(deps, user), refreshToken }
}
