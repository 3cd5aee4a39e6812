import { request } from 'undici'
import { AGENT_PATHS } from '../tools/policy.js'

/**
 * The agent's schemas the service does not serve, read from its public `/_describe` at start;
 * null when it cannot tell (unreachable, or `/_describe` gated).
 */
export async function missingSchemas (svcUrl: string, learning: boolean): Promise<string[] | null> {
  try {
    const res = await request(`${svcUrl.replace(/\/+$/, '')}/_describe`, { headersTimeout: 5000, bodyTimeout: 5000 })
    const body = (await res.body.json()) as { schemas?: Array<{ path?: unknown }> }
    if (res.statusCode !== 200 || !Array.isArray(body.schemas)) return null
    const served = new Set(body.schemas.map((s) => s.path))
    return AGENT_PATHS.filter((p) => (learning || p === 'agentConversations') && !served.has(p))
  } catch {
    return null
  }
}

/** What is lost without them, said once at start. */
export function missingSchemaWarnings (missing: string[]): string[] {
  const out: string[] = []
  if (missing.includes('agentConversations')) {
    out.push(
      'the service serves no agentConversations schema (start it with AGENT_LEARNING=true): conversations are not kept, each turn starts without the previous ones'
    )
  }
  const learning = missing.filter((p) => p !== 'agentConversations')
  if (learning.length > 0) {
    out.push(
      `learning is on, but the service serves no ${learning.join(', ')} (start it with AGENT_LEARNING=true): nothing is recalled and the learning tools fail`
    )
  }
  return out
}
