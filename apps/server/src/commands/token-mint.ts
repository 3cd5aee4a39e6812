import { parseDuration, signAccessToken } from '@svc/core/kit'

/** Prints a token on stdout and nothing else, so `SVC_BEARER=$(svc token mint …)` works. */
export function tokenMint (opts: {
  userId: string
  email: string
  roles: string[]
  ttl: string
  accountId?: string
}): void {
  const secret = process.env.JWT_SECRET
  if (secret == null || secret.trim() === '') {
    throw new Error('JWT_SECRET must be set to mint a token (use the secret of the server that will verify it)')
  }
  const ttlSeconds = parseDuration(opts.ttl)
  const claims = {
    user_id: opts.userId,
    email: opts.email,
    roles: opts.roles,
    ...(opts.accountId !== undefined ? { account_id: opts.accountId } : {})
  }
  process.stdout.write(`${signAccessToken(secret.trim(), claims, ttlSeconds)}\n`)
}
