import { request } from 'undici'
import type { HeaderSource } from './tools/mcp-tools.js'

/** Memories recalled into a turn's prompt (newest first). */
export const RECALLED_MEMORIES = 20
const TIMEOUT_MS = 10_000

/**
 * The learning layer's recall: the persona's instructions (newest persona record) and recent
 * memories, read through the service with the turn's identity and added to the system prompt.
 */
export class Recall {
  readonly #base: string

  constructor (svcUrl: string) {
    this.#base = `${svcUrl.replace(/\/+$/, '')}/api/v1`
  }

  async #list (path: string, query: Record<string, string>, headers: HeaderSource): Promise<Array<Record<string, unknown>>> {
    const res = await request(`${this.#base}/${path}?${new URLSearchParams(query).toString()}`, { headers: await headers(), headersTimeout: TIMEOUT_MS, bodyTimeout: TIMEOUT_MS })
    const body = await res.body.json() as { results?: Array<Record<string, unknown>> }
    if (res.statusCode !== 200) throw new Error(`recalling ${path} answered ${res.statusCode}`)
    return body.results ?? []
  }

  async prompt (base: string, channelUserId: string, headers: HeaderSource): Promise<string> {
    const [personas, memories] = await Promise.all([
      this.#list('agentPersona', { __perPage: '1', __sort: 'updatedAt:desc' }, headers),
      this.#list('agentMemory', { __perPage: String(RECALLED_MEMORIES), __sort: 'createdAt:desc' }, headers)
    ])
    const parts = [base]
    const instructions = personas[0]?.instructions
    if (typeof instructions === 'string' && instructions.trim() !== '') parts.push(`Persona:\n${instructions.trim()}`)
    const mine = memories.filter((m) => m.channelUserId == null || m.channelUserId === channelUserId)
    if (mine.length > 0) parts.push(`What you remember (write new memories with create_agentMemory):\n${mine.map((m) => `- ${String(m.content)}`).join('\n')}`)
    return parts.join('\n\n')
  }
}
