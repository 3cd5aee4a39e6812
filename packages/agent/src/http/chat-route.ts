import { randomUUID } from 'node:crypto'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { CookieSettings, Identities } from '../auth/identity.js'
import { SESSION_COOKIE, SESSION_TTL_SECONDS, signSession, verifySession } from '../auth/session-cookie.js'
import { errorEnvelope, isAgentError, UnsupportedMediaTypeError } from '../errors.js'
import type { ConversationTurns } from '../runtime/conversation-turns.js'
import type { AgentEvent } from '../runtime/events.js'
import type { Limiter } from '../store/types.js'
import { limited } from './limits.js'
import { checkOrigin, pageOrigin } from './origin.js'
import { openStream, writeEvent } from './sse.js'

export const MAX_MESSAGE_CHARS = 8000

export interface ChatRouteOptions {
  identities: Identities
  turns: ConversationTurns
  cookie: CookieSettings
  publicUrl?: string
  /** The listening origin, for link URLs when the request's own cannot be used. */
  fallbackOrigin: () => string
  /** Chat turns per address, and per chat user (a valid session). */
  perAddress: Limiter
  perUser: Limiter
}

interface ChatBody {
  message: string
  stream?: boolean
}

/**
 * The HTTP channel: the signed `svc_agent_session` cookie names the channel user. Without a
 * valid one a session starts (Set-Cookie on the reply, in per-user mode on the UNLINKED answer
 * too, so the same browser keeps its one link code).
 */
function channelUser (
  req: FastifyRequest,
  opts: ChatRouteOptions
): { cuid: string; signedIn: boolean; setCookie?: string } {
  const session = verifySession(opts.cookie.secret, req.cookies[SESSION_COOKIE])
  if (session != null) return { cuid: session.cuid, signedIn: true }
  const cuid = randomUUID()
  const signed = signSession(opts.cookie.secret, cuid)
  return {
    cuid,
    signedIn: false,
    setCookie: opts.cookie.serialize(SESSION_COOKIE, signed.value, {
      httpOnly: true,
      sameSite: 'lax',
      secure: opts.cookie.secure,
      path: '/',
      maxAge: SESSION_TTL_SECONDS
    })
  }
}

export function chatRoute (app: FastifyInstance, opts: ChatRouteOptions): void {
  app.post<{ Body: ChatBody }>(
    '/chat',
    {
      // JSON only, from the agent's own page, within the address's budget: before the body is read.
      onRequest: async (req) => {
        checkOrigin(req, opts.publicUrl)
        if (!(req.headers['content-type'] ?? '').toLowerCase().startsWith('application/json')) {
          throw new UnsupportedMediaTypeError('/chat takes a JSON body (content-type: application/json)')
        }
        await limited(opts.perAddress, req.ip, 'too many chat messages from your address')
      },
      schema: {
        body: {
          type: 'object',
          required: ['message'],
          // A body-supplied channelUserId is ignored (identity comes from the cookie), not refused.
          properties: {
            message: { type: 'string', minLength: 1, maxLength: MAX_MESSAGE_CHARS },
            stream: { type: 'boolean' }
          }
        }
      }
    },
    async (req, reply) => {
      const user = channelUser(req, opts)
      if (user.signedIn) await limited(opts.perUser, user.cuid, 'too many chat messages in this conversation')
      if (user.setCookie != null) reply.header('set-cookie', user.setCookie)
      const linkBase = opts.publicUrl ?? pageOrigin(req, undefined) ?? opts.fallbackOrigin()
      const identity = await opts.identities.forChannelUser('http', user.cuid, { linkBase, issuer: req.ip })
      // Refusals (expired bearer, unreachable service) answer as plain errors, before any streaming.
      const turn = await opts.turns.prepare(identity, req.log)

      if (req.body.stream === false) return await turn.run(req.body.message, () => {})

      reply.hijack()
      const raw = reply.raw
      const aborted = new AbortController()
      raw.on('close', () => {
        if (!raw.writableFinished) aborted.abort()
      })
      openStream(raw, user.setCookie)
      const emit = (event: AgentEvent): void => {
        writeEvent(raw, event)
      }
      try {
        const result = await turn.run(req.body.message, emit, aborted.signal)
        emit({
          type: 'final',
          text: result.text,
          history: result.history,
          ...(result.roundsCapped === true ? { roundsCapped: true } : {})
        })
        emit({ type: 'done', ok: true })
      } catch (err) {
        if (!isAgentError(err)) req.log.error({ err }, 'chat turn failed')
        else if (err.statusCode >= 500) req.log.warn({ err }, 'chat turn failed')
        emit({ type: 'done', ok: false, error: errorEnvelope(err).body.error })
      }
      raw.end()
    }
  )
}
