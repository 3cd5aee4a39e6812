import { randomUUID } from 'node:crypto'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { CookieSettings, Identities } from '../auth/identity.js'
import { SESSION_COOKIE, SESSION_TTL_SECONDS, signSession, verifySession } from '../auth/session-cookie.js'
import { errorEnvelope, isAgentError } from '../errors.js'
import type { ConversationTurns } from '../runtime/conversation-turns.js'
import type { AgentEvent } from '../runtime/events.js'
import { openStream, writeEvent } from './sse.js'

export const MAX_MESSAGE_CHARS = 8000

export interface ChatRouteOptions {
  identities: Identities
  turns: ConversationTurns
  cookie: CookieSettings
}

interface ChatBody { message: string, stream?: boolean }

/**
 * The HTTP channel: the signed `svc_agent_session` cookie names the channel user. Without a
 * valid one, service mode starts a session (Set-Cookie on the reply); per-user mode answers
 * UNLINKED, and the cookie is set when the link completes.
 */
function channelUser (req: FastifyRequest, opts: ChatRouteOptions): { cuid: string, setCookie?: string } {
  const session = verifySession(opts.cookie.secret, req.cookies[SESSION_COOKIE])
  if (session != null) return { cuid: session.cuid }
  const cuid = randomUUID()
  if (opts.identities.mode === 'per-user') return { cuid }
  const signed = signSession(opts.cookie.secret, cuid)
  return { cuid, setCookie: opts.cookie.serialize(SESSION_COOKIE, signed.value, { httpOnly: true, sameSite: 'lax', secure: opts.cookie.secure, path: '/', maxAge: SESSION_TTL_SECONDS }) }
}

export function chatRoute (app: FastifyInstance, opts: ChatRouteOptions): void {
  app.post<{ Body: ChatBody }>('/chat', {
    schema: {
      body: {
        type: 'object',
        required: ['message'],
        // A body-supplied channelUserId is ignored (identity comes from the cookie), not refused.
        properties: { message: { type: 'string', minLength: 1, maxLength: MAX_MESSAGE_CHARS }, stream: { type: 'boolean' } }
      }
    }
  }, async (req, reply) => {
    const user = channelUser(req, opts)
    const identity = await opts.identities.forChannelUser('http', user.cuid)
    // Refusals (expired bearer, unreachable service) answer as plain errors, before any streaming.
    const turn = await opts.turns.prepare(identity, req.log)

    if (req.body.stream === false) {
      const result = await turn.run(req.body.message, () => {})
      if (user.setCookie != null) reply.header('set-cookie', user.setCookie)
      return result
    }

    reply.hijack()
    const raw = reply.raw
    const aborted = new AbortController()
    raw.on('close', () => { if (!raw.writableFinished) aborted.abort() })
    openStream(raw, user.setCookie)
    const emit = (event: AgentEvent): void => { writeEvent(raw, event) }
    try {
      const result = await turn.run(req.body.message, emit, aborted.signal)
      emit({ type: 'final', text: result.text, history: result.history, ...(result.roundsCapped === true ? { roundsCapped: true } : {}) })
      emit({ type: 'done', ok: true })
    } catch (err) {
      if (!isAgentError(err)) req.log.error({ err }, 'chat turn failed')
      emit({ type: 'done', ok: false, error: errorEnvelope(err).body.error })
    }
    raw.end()
  })
}
