import { request } from 'undici'
import type { HistoryMessage } from './runtime/events.js'
import type { HeaderSource } from './tools/mcp-tools.js'

/** Messages kept per conversation; older ones are dropped when saving. */
export const STORED_MESSAGES = 100
const TIMEOUT_MS = 10_000

export interface ConversationKey { channel: string, channelUserId: string }

/**
 * Conversations live in the service (schema `agentConversations`, owner-scoped), read and written
 * through its REST API with the turn's own identity, so history survives agent restarts and a
 * tenant only ever sees its own.
 */
export class Conversations {
  readonly #base: string

  constructor (svcUrl: string) {
    this.#base = `${svcUrl.replace(/\/+$/, '')}/api/v1/agentConversations`
  }

  async load (key: ConversationKey, headers: HeaderSource): Promise<{ id: string | null, history: HistoryMessage[] }> {
    const query = new URLSearchParams({ channel: key.channel, channelUserId: key.channelUserId, __perPage: '1' })
    const res = await request(`${this.#base}?${query.toString()}`, { headers: await headers(), headersTimeout: TIMEOUT_MS, bodyTimeout: TIMEOUT_MS })
    const body = await res.body.json() as { results?: Array<{ _id: string, messages?: unknown }> }
    if (res.statusCode !== 200) throw new Error(`loading the conversation answered ${res.statusCode}: ${JSON.stringify(body)}`)
    const found = body.results?.[0]
    if (found == null) return { id: null, history: [] }
    return { id: found._id, history: Array.isArray(found.messages) ? found.messages.filter(isMessage) : [] }
  }

  /** Creates or updates the conversation; returns its id. */
  async save (key: ConversationKey, id: string | null, history: HistoryMessage[], headers: HeaderSource): Promise<string> {
    const messages = history.slice(-STORED_MESSAGES)
    const res = await request(id == null ? this.#base : `${this.#base}/${id}`, {
      method: id == null ? 'POST' : 'PUT',
      headers: { ...await headers(), 'content-type': 'application/json' },
      body: JSON.stringify(id == null ? { ...key, messages } : { messages }),
      headersTimeout: TIMEOUT_MS,
      bodyTimeout: TIMEOUT_MS
    })
    const body = await res.body.json() as { _id?: string }
    if (res.statusCode !== 200 && res.statusCode !== 201) throw new Error(`saving the conversation answered ${res.statusCode}: ${JSON.stringify(body)}`)
    return body._id ?? id as string
  }
}

function isMessage (m: unknown): m is HistoryMessage {
  const x = m as HistoryMessage | null
  return x != null && (x.role === 'user' || x.role === 'assistant') && typeof x.content === 'string'
}
