import type { ConversationKey } from './conversations.js'
import type { Row, ServiceRecords } from './service/records.js'
import type { HeaderSource } from './tools/mcp-tools.js'

/** Memories recalled into a turn's prompt (newest first). */
export const RECALLED_MEMORIES = 20
/** Approved skills recalled into a turn's prompt (newest first). */
export const RECALLED_SKILLS = 10

const text = (v: unknown): string => (typeof v === 'string' ? v.trim() : '')

/**
 * The learning layer's recall, read through the service with the turn's identity. Shared
 * knowledge (the persona's instructions, approved skills) is what people authored; memories and
 * the customer profile are queried by the chat user's (channel, channelUserId), so one chat
 * user's notes never reach another's prompt.
 */
export class Recall {
  constructor (private readonly records: ServiceRecords) {}

  async prompt (base: string, key: ConversationKey, headers: HeaderSource): Promise<string> {
    const mine = { channel: key.channel, channelUserId: key.channelUserId }
    const [personas, skills, memories, profiles] = await Promise.all([
      this.records.list('agentPersona', { __perPage: '5', __sort: 'updatedAt:desc' }, headers),
      this.records.list(
        'skills',
        { status: 'approved', __perPage: String(RECALLED_SKILLS), __sort: 'updatedAt:desc' },
        headers
      ),
      this.records.list(
        'agentMemory',
        { ...mine, __perPage: String(RECALLED_MEMORIES), __sort: 'createdAt:desc' },
        headers
      ),
      this.records.list('customerProfiles', { ...mine, __perPage: '1' }, headers)
    ])
    const parts = [base]
    // A record carrying only a proposed patch has no instructions: the newest authored persona counts.
    const instructions = personas.map((p) => text(p.instructions)).find((s) => s !== '')
    if (instructions != null) parts.push(`Persona:\n${instructions}`)
    if (skills.length > 0) parts.push(`Approved skills:\n${skills.map(skill).join('\n')}`)
    const profile = profiles[0]
    if (profile != null) parts.push(`About the person you are talking to:\n${describeProfile(profile)}`)
    if (memories.length > 0) {
      parts.push(
        `What you remember about this person (save more with remember):\n${memories.map((m) => `- ${text(m.content)}`).join('\n')}`
      )
    }
    return parts.join('\n\n')
  }
}

function skill (s: Row): string {
  const steps = text(s.steps)
  return `- ${text(s.name)}${text(s.description) !== '' ? `: ${text(s.description)}` : ''}${steps !== '' ? `\n  Steps: ${steps.replace(/\n/g, '\n  ')}` : ''}`
}

function describeProfile (p: Row): string {
  const lines: string[] = []
  if (text(p.displayName) !== '') lines.push(`Name: ${text(p.displayName)}`)
  if (text(p.summary) !== '') lines.push(`Summary: ${text(p.summary)}`)
  if (p.preferences != null && typeof p.preferences === 'object') {
    lines.push(`Preferences: ${JSON.stringify(p.preferences)}`)
  }
  return lines.join('\n')
}
