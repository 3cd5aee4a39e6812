import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { SESSION_COOKIE, SESSION_TTL_SECONDS, signSession } from '../auth/session-cookie.js'
import type { AccessTokens } from '../auth/access-tokens.js'
import type { CookieSettings } from '../auth/identity.js'
import type { Nonces } from '../auth/nonces.js'
import { storeKey } from '../auth/per-user-mode.js'
import type { SvcAuth } from '../auth/svc-auth.js'
import type { AgentStore } from '../store/types.js'
import { goneLinkPage, linkedPage, linkForm, PAGE_HEADERS } from './link-page.js'

export interface LinkRouteOptions {
  agentKey: string
  nonces: Nonces
  store: AgentStore
  tokens: AccessTokens
  auth: SvcAuth
  cookie: CookieSettings
}

/** A form-posting browser gets pages; a client asking for JSON gets the envelope. */
function wantsJson (req: FastifyRequest): boolean {
  const accept = req.headers.accept ?? ''
  return accept.includes('application/json') && !accept.includes('text/html')
}

function answer (req: FastifyRequest, reply: FastifyReply, status: number, html: string, json: unknown): FastifyReply {
  if (wantsJson(req)) return reply.code(status).header('cache-control', 'no-store').send(json)
  return reply.code(status).headers(PAGE_HEADERS).send(html)
}

const GONE = { error: { code: 'NOT_FOUND', message: 'this link has expired or was already used' } }

/** The link flow (spec "Agent link and session lifecycle") and the always-refused `/oauth/callback`. */
export function linkRoutes (app: FastifyInstance, opts: LinkRouteOptions): void {
  app.get<{ Params: { nonce: string } }>('/link/:nonce', async (req, reply) => {
    if (opts.nonces.peek(req.params.nonce) == null) return answer(req, reply, 404, goneLinkPage(), GONE)
    return reply.code(200).headers(PAGE_HEADERS).send(linkForm())
  })

  app.post<{ Params: { nonce: string }, Body: { email?: unknown, password?: unknown } }>('/link/:nonce', async (req, reply) => {
    const { nonce } = req.params
    const pending = opts.nonces.peek(nonce)
    if (pending == null) return answer(req, reply, 404, goneLinkPage(), GONE)
    const email = typeof req.body?.email === 'string' ? req.body.email.trim() : ''
    const password = typeof req.body?.password === 'string' ? req.body.password : ''
    if (email === '' || password === '') {
      return answer(req, reply, 400, linkForm('Enter your email and password.', email), { error: { code: 'VALIDATION', message: 'email and password are required' } })
    }
    const session = await opts.auth.login(email, password)
    if (session == null) {
      const burned = opts.nonces.fail(nonce)
      if (burned) return answer(req, reply, 404, goneLinkPage(), GONE)
      return answer(req, reply, 401, linkForm('Wrong email or password.', email), { error: { code: 'UNAUTHENTICATED', message: 'wrong email or password' } })
    }
    // Re-checked after the login round trip: two posts racing on one nonce link once.
    if (opts.nonces.peek(nonce) == null) return answer(req, reply, 404, goneLinkPage(), GONE)
    opts.nonces.consume(nonce)
    const key = storeKey(opts.agentKey, pending.channel, pending.channelUserId)
    await opts.store.set(key, { refreshToken: session.refreshToken, userId: session.userId ?? '', linkedAt: new Date().toISOString() })
    opts.tokens.seed(key, session.accessToken)
    // Only the HTTP channel's users chat with the cookie; other channels carry their own signed identity.
    if (pending.channel === 'http') {
      const signed = signSession(opts.cookie.secret, pending.channelUserId)
      reply.header('set-cookie', opts.cookie.serialize(SESSION_COOKIE, signed.value, { httpOnly: true, sameSite: 'lax', secure: opts.cookie.secure, path: '/', maxAge: SESSION_TTL_SECONDS }))
    }
    return answer(req, reply, 200, linkedPage(), { linked: true })
  })
}

/** Tokens never travel in URLs: any use of `/oauth/callback` is refused. */
export function oauthCallbackRoute (app: FastifyInstance): void {
  app.all('/oauth/callback', async (req, reply) => {
    return await reply.code(403).header('cache-control', 'no-store').send({ error: { code: 'FORBIDDEN', message: 'the agent does not take tokens by URL; link your account through the /link/<nonce> page the chat gives you' } })
  })
}
