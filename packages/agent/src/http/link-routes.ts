import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import formbody from '@fastify/formbody'
import { SESSION_COOKIE, SESSION_TTL_SECONDS, signSession } from '../auth/session-cookie.js'
import type { AccessTokens } from '../auth/access-tokens.js'
import type { CookieSettings } from '../auth/identity.js'
import type { SvcAuth } from '../auth/svc-auth.js'
import { httpError } from './errors.js'
import type { AgentStore, Limiter } from '../store/types.js'
import { goneLinkPage, linkedPage, linkForm, PAGE_HEADERS, refusedFormPage } from './link-page.js'
import { checkOrigin } from './origin.js'
import { limited } from './limits.js'

export interface LinkRouteOptions {
  agentKey: string
  store: AgentStore
  tokens: AccessTokens
  auth: SvcAuth
  cookie: CookieSettings
  publicUrl?: string
  linkTtlSeconds: number
  /** Sign-in attempts per address. */
  signIns: Limiter
}

/** The form token's cookie: readable by the link pages only, never sent by another site. */
const FORM_COOKIE = 'svc_agent_link'

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

/**
 * The link flow (spec "Agent link and session lifecycle") against login CSRF: a post must come
 * from the agent's own origin, and a browser's form post must carry the token the form was
 * served with, bound to its nonce and to a SameSite=Strict cookie another site's page cannot
 * send. JSON posts need no token: a browser sends that content type cross-site only after a
 * CORS preflight the agent never grants.
 */
export async function linkRoutes (app: FastifyInstance, opts: LinkRouteOptions): Promise<void> {
  const formToken = (secret: string, nonce: string): string =>
    createHmac('sha256', opts.cookie.secret).update(`link-form:${nonce}:${secret}`).digest('base64url')
  const formCookie = (value: string, maxAge: number): string =>
    opts.cookie.serialize(FORM_COOKIE, value, {
      httpOnly: true,
      sameSite: 'strict',
      secure: opts.cookie.secure,
      path: '/link/',
      maxAge
    })
  const ownToken = (req: FastifyRequest, nonce: string): string | null => {
    const secret = req.cookies[FORM_COOKIE]
    return typeof secret === 'string' && secret !== '' ? formToken(secret, nonce) : null
  }
  const pendingOf = async (nonce: string) => {
    const pending = await opts.store.pending.peek(nonce)
    return pending != null && pending.key.startsWith(`${opts.agentKey}:`) ? pending : null
  }

  await app.register(async (scope) => {
    await scope.register(formbody)

    scope.get<{ Params: { nonce: string } }>('/link/:nonce', async (req, reply) => {
      const { nonce } = req.params
      if ((await pendingOf(nonce)) == null) return answer(req, reply, 404, goneLinkPage(), GONE)
      const secret = req.cookies[FORM_COOKIE] ?? randomBytes(18).toString('base64url')
      return reply
        .code(200)
        .headers(PAGE_HEADERS)
        .header('set-cookie', formCookie(secret, opts.linkTtlSeconds))
        .send(linkForm(formToken(secret, nonce)))
    })

    scope.post<{ Params: { nonce: string }; Body: { email?: unknown; password?: unknown; _form?: unknown } }>(
      '/link/:nonce',
      {
        onRequest: async (req) => {
          checkOrigin(req, opts.publicUrl)
          await limited(opts.signIns, req.ip, 'too many sign-in attempts from your address')
        },
        errorHandler: (err, req, reply) => {
          const { status, body } = httpError(err, req, reply)
          return answer(req, reply, status, refusedFormPage(body.error.message), body)
        }
      },
      async (req, reply) => {
        const { nonce } = req.params
        const pending = await pendingOf(nonce)
        if (pending == null) return answer(req, reply, 404, goneLinkPage(), GONE)
        const expected = ownToken(req, nonce)
        const isForm = (req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')
        // A browser's post carries Origin, Referer or Sec-Fetch-Site (a page can suppress the
        // Referer, not the others); a client sending none of them (curl) is no CSRF vector.
        const fromBrowser =
          req.headers.origin != null || req.headers.referer != null || req.headers['sec-fetch-site'] != null
        const given = typeof req.body?._form === 'string' ? Buffer.from(req.body._form) : null
        if (
          isForm &&
          fromBrowser &&
          (expected == null ||
            given == null ||
            given.length !== Buffer.byteLength(expected) ||
            !timingSafeEqual(given, Buffer.from(expected)))
        ) {
          const message = 'This sign-in form expired or was not opened here. Open the link from the chat again.'
          return answer(req, reply, 403, refusedFormPage(message), { error: { code: 'FORBIDDEN', message } })
        }
        const email = typeof req.body?.email === 'string' ? req.body.email.trim() : ''
        const password = typeof req.body?.password === 'string' ? req.body.password : ''
        const again = expected ?? ''
        if (email === '' || password === '') {
          return answer(req, reply, 400, linkForm(again, 'Enter your email and password.', email), {
            error: { code: 'VALIDATION', message: 'email and password are required' }
          })
        }
        const session = await opts.auth.login(email, password, req.ip)
        if (session == null) {
          if (await opts.store.pending.fail(nonce)) return answer(req, reply, 404, goneLinkPage(), GONE)
          return answer(req, reply, 401, linkForm(again, 'Wrong email or password.', email), {
            error: { code: 'UNAUTHENTICATED', message: 'wrong email or password' }
          })
        }
        // Exactly one of two racing sign-ins (in any process sharing the store) consumes the code.
        if (!(await opts.store.pending.consume(nonce))) return answer(req, reply, 404, goneLinkPage(), GONE)
        const renewAt = opts.tokens.renewAt(session.accessToken)
        await opts.store.set(pending.key, {
          refreshToken: session.refreshToken,
          userId: session.userId ?? '',
          linkedAt: new Date().toISOString(),
          accessToken: session.accessToken,
          renewAt
        })
        opts.tokens.seed(pending.key, session.accessToken, renewAt)
        const cookies = req.cookies[FORM_COOKIE] != null ? [formCookie('', 0)] : []
        // Only the HTTP channel's users chat with the cookie; other channels carry their own signed identity.
        if (pending.channel === 'http') {
          const signed = signSession(opts.cookie.secret, pending.channelUserId)
          cookies.push(
            opts.cookie.serialize(SESSION_COOKIE, signed.value, {
              httpOnly: true,
              sameSite: 'lax',
              secure: opts.cookie.secure,
              path: '/',
              maxAge: SESSION_TTL_SECONDS
            })
          )
        }
        if (cookies.length > 0) reply.header('set-cookie', cookies)
        return answer(req, reply, 200, linkedPage(pending.channel), { linked: true })
      }
    )
  })
}

/** Tokens never travel in URLs: any use of `/oauth/callback` is refused. */
export function oauthCallbackRoute (app: FastifyInstance): void {
  app.all('/oauth/callback', async (_req, reply) => {
    return await reply
      .code(403)
      .header('cache-control', 'no-store')
      .send({
        error: {
          code: 'FORBIDDEN',
          message:
            'the agent does not take tokens by URL; link your account through the /link/<nonce> page the chat gives you'
        }
      })
  })
}
