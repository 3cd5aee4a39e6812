import { createHmac, timingSafeEqual } from 'node:crypto'

export const SESSION_COOKIE = 'svc_agent_session'
export const SESSION_TTL_SECONDS = 30 * 24 * 3600

export interface SessionPayload {
  cuid: string
  iat: number
  exp: number
}

/** The cookie HMAC key of one agent instance, derived from `AGENT_SESSION_SECRET` and `AGENT_KEY`. */
export function sessionKey (sessionSecret: string, agentKey: string): string {
  return createHmac('sha256', sessionSecret).update(`svc_agent_session:${agentKey}`).digest('hex')
}

function mac (secret: string, data: string): Buffer {
  return createHmac('sha256', secret).update(data).digest()
}

/** `<base64url payload>.<base64url HMAC-SHA256>` of `{ cuid, iat, exp }`. */
export function signSession (
  secret: string,
  cuid: string,
  now = Date.now()
): { value: string; payload: SessionPayload } {
  const iat = Math.floor(now / 1000)
  const payload = { cuid, iat, exp: iat + SESSION_TTL_SECONDS }
  const data = Buffer.from(JSON.stringify(payload)).toString('base64url')
  return { value: `${data}.${mac(secret, data).toString('base64url')}`, payload }
}

/** The payload of a cookie signed with `secret` and not expired, else null (timing-safe). */
export function verifySession (secret: string, value: string | undefined, now = Date.now()): SessionPayload | null {
  if (value == null) return null
  const dot = value.indexOf('.')
  if (dot <= 0) return null
  const data = value.slice(0, dot)
  const given = Buffer.from(value.slice(dot + 1), 'base64url')
  const expected = mac(secret, data)
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null
  let payload: SessionPayload
  try {
    payload = JSON.parse(Buffer.from(data, 'base64url').toString('utf8')) as SessionPayload
  } catch {
    return null
  }
  if (typeof payload.cuid !== 'string' || typeof payload.exp !== 'number' || payload.exp * 1000 <= now) return null
  return payload
}
