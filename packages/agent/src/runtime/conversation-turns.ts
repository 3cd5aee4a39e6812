import type { FastifyBaseLogger } from 'fastify'
import type { ChatIdentity } from '../auth/identity.js'
import type { Conversations } from '../conversations.js'
import type { Model } from '../model/types.js'
import type { Recall } from '../recall.js'
import { RecordsError, type ServiceRecords } from '../service/records.js'
import { LearningTools } from '../tools/learning-tools.js'
import type { HeaderSource } from '../tools/mcp-tools.js'
import type { AgentEvent, HistoryMessage, TurnResult } from './events.js'
import type { Toolbox } from './toolbox.js'
import { DEFAULT_SYSTEM_PROMPT, runTurn } from './turn.js'

const LOST = 'conversations are not kept: each turn starts without the previous ones'

export interface TurnsOptions {
  model: Model
  /** The (cached) toolbox of an identity. */
  toolbox: (key: string, headers: HeaderSource) => Toolbox
  conversations: Conversations
  maxToolRounds: number
  systemPrompt?: string
  /** The learning layer: recall into each turn's prompt, and the learning tools for identities holding role `agent`. */
  learning?: { recall: Recall; records: ServiceRecords }
}

export interface PreparedTurn {
  /** Runs the turn, emitting its events, and saves the conversation. */
  run: (message: string, emit: (event: AgentEvent) => void, signal?: AbortSignal) => Promise<TurnResult>
}

/**
 * Chat turns of any channel: the identity's tools, the channel user's stored conversation, the
 * turn itself, the conversation saved. Persistence failures never fail a turn (logged instead;
 * a schema the service does not serve is said once, not at every turn).
 */
export class ConversationTurns {
  readonly #warned = new Set<string>()

  constructor (private readonly opts: TurnsOptions) {}

  #warn (log: FastifyBaseLogger, what: string, err: unknown): void {
    if (err instanceof RecordsError && err.missing) {
      if (this.#warned.has(err.path)) return
      this.#warned.add(err.path)
      log.warn(`the service serves no ${err.path} schema (start it with AGENT_LEARNING=true): ${what}`)
      return
    }
    log.warn({ err }, what)
  }

  /** Checks the service answers for this identity and loads its history (before any streaming). */
  async prepare (identity: ChatIdentity, log: FastifyBaseLogger): Promise<PreparedTurn> {
    const toolbox = this.opts.toolbox(identity.key, identity.headers)
    await toolbox.serviceTools()
    const key = { channel: identity.channel, channelUserId: identity.channelUserId }
    let stored: { id: string | null; history: HistoryMessage[] } = { id: null, history: [] }
    let keep = true
    try {
      stored = await this.opts.conversations.load(key, identity.headers)
    } catch (err) {
      // Without the schema there is nothing to save into either; the next turn asks again.
      keep = !(err instanceof RecordsError && err.missing)
      this.#warn(log, LOST, err)
    }
    let systemPrompt = this.opts.systemPrompt ?? DEFAULT_SYSTEM_PROMPT
    const learning = this.opts.learning
    if (learning != null) {
      try {
        systemPrompt = await learning.recall.prompt(systemPrompt, key, identity.headers)
      } catch (err) {
        this.#warn(log, 'nothing is recalled into the prompt', err)
      }
    }
    // Spec: the learning layer's writes belong to role agent; a person's own token gets no learning tools.
    const tools = toolbox.forTurn(
      learning != null && identity.roles.includes('agent')
        ? new LearningTools(learning.records, key, identity.headers)
        : undefined
    )
    return {
      run: async (message, emit, signal) => {
        const result = await runTurn({
          model: this.opts.model,
          toolbox: tools,
          message,
          history: stored.history,
          maxToolRounds: this.opts.maxToolRounds,
          systemPrompt,
          emit,
          signal
        })
        if (keep) {
          try {
            await this.opts.conversations.save(key, stored.id, result.history, identity.headers)
          } catch (err) {
            this.#warn(log, LOST, err)
          }
        }
        return result
      }
    }
  }
}
