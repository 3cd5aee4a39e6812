import type { FastifyBaseLogger } from 'fastify'
import type { ChatIdentity } from '../auth/identity.js'
import type { Conversations } from '../conversations.js'
import type { Model } from '../model/types.js'
import type { Recall } from '../recall.js'
import type { HeaderSource } from '../tools/mcp-tools.js'
import type { AgentEvent, HistoryMessage, TurnResult } from './events.js'
import type { Toolbox } from './toolbox.js'
import { DEFAULT_SYSTEM_PROMPT, runTurn } from './turn.js'

export interface TurnsOptions {
  model: Model
  /** The (cached) toolbox of an identity. */
  toolbox: (key: string, headers: HeaderSource) => Toolbox
  conversations: Conversations
  maxToolRounds: number
  systemPrompt?: string
  /** The learning layer: persona and memories recalled into each turn's prompt. */
  recall?: Recall
}

export interface PreparedTurn {
  /** Runs the turn, emitting its events, and saves the conversation. */
  run: (message: string, emit: (event: AgentEvent) => void, signal?: AbortSignal) => Promise<TurnResult>
}

/**
 * Chat turns of any channel: the identity's tools, the channel user's stored conversation, the
 * turn itself, the conversation saved. Persistence failures never fail a turn (logged instead).
 */
export class ConversationTurns {
  constructor (private readonly opts: TurnsOptions) {}

  /** Checks the service answers for this identity and loads its history (before any streaming). */
  async prepare (identity: ChatIdentity, log: FastifyBaseLogger): Promise<PreparedTurn> {
    const toolbox = this.opts.toolbox(identity.key, identity.headers)
    await toolbox.specs()
    const key = { channel: identity.channel, channelUserId: identity.channelUserId }
    let stored: { id: string | null, history: HistoryMessage[] } = { id: null, history: [] }
    try {
      stored = await this.opts.conversations.load(key, identity.headers)
    } catch (err) {
      log.warn({ err }, 'conversation not loaded; answering without history')
    }
    let systemPrompt = this.opts.systemPrompt ?? DEFAULT_SYSTEM_PROMPT
    if (this.opts.recall != null) {
      try {
        systemPrompt = await this.opts.recall.prompt(systemPrompt, identity.channelUserId, identity.headers)
      } catch (err) {
        log.warn({ err }, 'memory not recalled; answering without it')
      }
    }
    return {
      run: async (message, emit, signal) => {
        const result = await runTurn({ model: this.opts.model, toolbox, message, history: stored.history, maxToolRounds: this.opts.maxToolRounds, systemPrompt, emit, signal })
        try {
          await this.opts.conversations.save(key, stored.id, result.history, identity.headers)
        } catch (err) {
          log.warn({ err }, 'conversation not saved')
        }
        return result
      }
    }
  }
}
