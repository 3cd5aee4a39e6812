import type { FastifyInstance } from 'fastify'
import type { IdentityResolver } from '../auth/identity.js'
import type { Conversations } from '../conversations.js'
import { errorEnvelope, isAgentError } from '../errors.js'
import type { Model } from '../model/types.js'
import type { AgentEvent, HistoryMessage } from '../runtime/events.js'
import type { Toolbox } from '../runtime/toolbox.js'
import { runTurn } from '../runtime/turn.js'
import type { HeaderSource } from '../tools/mcp-tools.js'
import { openStream, writeEvent } from './sse.js'

export const MAX_MESSAGE_CHARS = 8000

export interface ChatRouteOptions {
  model: Model
  identity: IdentityResolver
  /** The (cached) toolbox of an identity. */
  toolbox: (key: string, headers: HeaderSource) => Toolbox
  conversations: Conversations
  maxToolRounds: number
  systemPrompt?: string
}

interface ChatBody { message: string, stream?: boolean }

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
    const identity = await opts.identity.resolve(req)
    const toolbox = opts.toolbox(identity.key, identity.headers)
    // Refusals (expired bearer, unreachable service) answer as plain errors, before any streaming.
    await toolbox.specs()
    const key = { channel: identity.channel, channelUserId: identity.channelUserId }
    let stored: { id: string | null, history: HistoryMessage[] } = { id: null, history: [] }
    try {
      stored = await opts.conversations.load(key, identity.headers)
    } catch (err) {
      req.log.warn({ err }, 'conversation not loaded; answering without history')
    }
    const save = async (history: HistoryMessage[]): Promise<void> => {
      try {
        await opts.conversations.save(key, stored.id, history, identity.headers)
      } catch (err) {
        req.log.warn({ err }, 'conversation not saved')
      }
    }
    const turn = { model: opts.model, toolbox, message: req.body.message, history: stored.history, maxToolRounds: opts.maxToolRounds, systemPrompt: opts.systemPrompt }

    if (req.body.stream === false) {
      const result = await runTurn({ ...turn, emit: () => {} })
      await save(result.history)
      if (identity.setCookie != null) reply.header('set-cookie', identity.setCookie)
      return result
    }

    reply.hijack()
    const raw = reply.raw
    const aborted = new AbortController()
    raw.on('close', () => { if (!raw.writableFinished) aborted.abort() })
    openStream(raw, identity.setCookie)
    const emit = (event: AgentEvent): void => { writeEvent(raw, event) }
    try {
      const result = await runTurn({ ...turn, emit, signal: aborted.signal })
      await save(result.history)
      emit({ type: 'final', text: result.text, history: result.history, ...(result.roundsCapped === true ? { roundsCapped: true } : {}) })
      emit({ type: 'done', ok: true })
    } catch (err) {
      if (!isAgentError(err)) req.log.error({ err }, 'chat turn failed')
      emit({ type: 'done', ok: false, error: errorEnvelope(err).body.error })
    }
    raw.end()
  })
}
