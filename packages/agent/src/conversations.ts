import type { HistoryMessage } from './runtime/events.js'
import type { ServiceRecords } from './service/records.js'
import type { HeaderSource } from './tools/mcp-tools.js'

/** Messages kept per conversation; older ones are dropped when saving. */
export const STORED_MESSAGES = 100
const PATH = 'agentConversations'

export interface ConversationKey {
  channel: string
  channelUserId: string
}

/**
 * Conversations live in the service (schema `agentConversations`, owner-scoped), read and written
 * through its REST API with the turn's own identity and always filtered by (channel,
 * channelUserId): history survives agent restarts, and one chat user never loads another's.
 */
export class Conversations {
  constructor (private readonly records: ServiceRecords) {}

  async load (key: ConversationKey, headers: HeaderSource): Promise<{ id: string | null; history: HistoryMessage[] }> {
    const [found] = await this.records.list(
      PATH,
      { channel: key.channel, channelUserId: key.channelUserId, __perPage: '1' },
      headers
    )
    if (found == null) return { id: null, history: [] }
    return { id: String(found._id), history: Array.isArray(found.messages) ? found.messages.filter(isMessage) : [] }
  }

  /** Creates or updates the conversation; returns its id. */
  async save (
    key: ConversationKey,
    id: string | null,
    history: HistoryMessage[],
    headers: HeaderSource
  ): Promise<string> {
    const messages = history.slice(-STORED_MESSAGES)
    const saved =
      id == null
        ? await this.records.create(PATH, { ...key, messages }, headers)
        : await this.records.update(PATH, id, { messages }, headers)
    return String(saved._id ?? id)
  }
}

function isMessage (m: unknown): m is HistoryMessage {
  const x = m as HistoryMessage | null
  return x != null && (x.role === 'user' || x.role === 'assistant') && typeof x.content === 'string'
}
