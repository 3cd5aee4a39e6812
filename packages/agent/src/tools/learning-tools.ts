import { Ajv } from 'ajv'
import type { ConversationKey } from '../conversations.js'
import type { ToolSpec } from '../model/types.js'
import { RecordsError, type ServiceRecords } from '../service/records.js'
import type { HeaderSource, ToolOutcome } from './mcp-tools.js'

/**
 * The learning layer as the model sees it: three tools bound to the chat user of the turn. The
 * (channel, channelUserId) of what they write comes from the verified identity, never from the
 * model's arguments, and there is no tool to read another person's notes, to write the persona
 * or to approve a skill: those are people's actions, through the service.
 */
export const learningToolSpecs: ToolSpec[] = [
  {
    name: 'remember',
    description:
      "Remember something about the person you are talking to (a preference, their context) for your later conversations with them. Only this person's conversations recall it.",
    parameters: {
      type: 'object',
      properties: {
        content: { type: 'string', minLength: 1, maxLength: 2000, description: 'What to remember, one fact' },
        tags: { type: 'array', items: { type: 'string', maxLength: 50 }, maxItems: 10 }
      },
      required: ['content']
    }
  },
  {
    name: 'update_customer_profile',
    description:
      'Update what you know about the person you are talking to: the name they go by, a short summary, their preferences. Fields you leave out are kept.',
    parameters: {
      type: 'object',
      properties: {
        displayName: { type: 'string', maxLength: 200 },
        summary: { type: 'string', maxLength: 2000 },
        preferences: { type: 'object', description: 'e.g. { "currency": "EUR", "answerLength": "short" }' }
      }
    }
  },
  {
    name: 'draft_skill',
    description:
      'Propose a reusable procedure (a skill) you found useful. It stays a draft until a person approves it; approved skills are shown to you in every conversation.',
    parameters: {
      type: 'object',
      properties: {
        name: { type: 'string', minLength: 1, maxLength: 200 },
        description: { type: 'string', maxLength: 1000 },
        steps: { type: 'string', minLength: 1, maxLength: 4000 }
      },
      required: ['name', 'steps']
    }
  }
]

const ajv = new Ajv({ allErrors: false, coerceTypes: false })
const validators = new Map(learningToolSpecs.map((s) => [s.name, ajv.compile(s.parameters)]))

export function isLearningTool (name: string): boolean {
  return validators.has(name)
}

function pick (args: Record<string, unknown>, names: string[]): Record<string, unknown> {
  return Object.fromEntries(names.filter((n) => args[n] !== undefined).map((n) => [n, args[n]]))
}

/** Runs the learning tools for one chat user, through the service with the turn's identity. */
export class LearningTools {
  constructor (
    private readonly records: ServiceRecords,
    private readonly key: ConversationKey,
    private readonly headers: HeaderSource
  ) {}

  async run (name: string, args: Record<string, unknown>): Promise<ToolOutcome> {
    const validate = validators.get(name)
    if (validate == null) {
      return { isError: true, result: { error: { code: 'NOT_FOUND', message: `no tool named ${name}` } } }
    }
    if (!validate(args)) {
      return {
        isError: true,
        result: { error: { code: 'VALIDATION', message: ajv.errorsText(validate.errors, { dataVar: 'args' }) } }
      }
    }
    const key = { channel: this.key.channel, channelUserId: this.key.channelUserId }
    try {
      if (name === 'remember') {
        const saved = await this.records.create(
          'agentMemory',
          { ...pick(args, ['content', 'tags']), ...key },
          this.headers
        )
        return { isError: false, result: { remembered: saved.content } }
      }
      if (name === 'update_customer_profile') {
        const fields = pick(args, ['displayName', 'summary', 'preferences'])
        const [current] = await this.records.list('customerProfiles', { ...key, __perPage: '1' }, this.headers)
        const saved =
          current == null
            ? await this.records.create('customerProfiles', { ...fields, ...key }, this.headers)
            : await this.records.update('customerProfiles', String(current._id), fields, this.headers)
        return { isError: false, result: { profile: pick(saved, ['displayName', 'summary', 'preferences']) } }
      }
      const saved = await this.records.create('skills', pick(args, ['name', 'description', 'steps']), this.headers)
      return { isError: false, result: { drafted: saved.name, status: saved.status } }
    } catch (err) {
      if (err instanceof RecordsError) return { isError: true, result: { error: err.envelope } }
      throw err
    }
  }
}
