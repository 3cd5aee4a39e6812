import { ForbiddenError, ValidationError, type RequestContext, type ResourceService } from '@svc/core'
import { checkFeedPatterns, EVENT_ACTIONS, type EventAudience } from '@svc/core/kit'

/** One schema as a subscriber sees it: which of its events it asked for, and its audience (list rule, readable fields). */
export interface View {
  service: ResourceService
  /** Actions asked for (null: every one). */
  actions: ReadonlySet<string> | null
  audience: EventAudience
  /** The readable-field set as a key: subscribers with the same one share each event's presentation. */
  readKey: string
}

const MAX_PATTERNS = 50

/** `?types=` text (comma-separated) as patterns; absent or empty: every event. */
export function parseTypes (raw: unknown): string[] {
  if (raw === undefined || raw === null || raw === '') return ['*']
  if (typeof raw !== 'string') throw new ValidationError('types must be comma-separated patterns', { field: 'types' })
  const out = raw.split(',').map((p) => p.trim())
  if (out.length > MAX_PATTERNS) {
    throw new ValidationError(`types: at most ${MAX_PATTERNS} patterns`, { field: 'types' })
  }
  return out
}

function actionsFor (patterns: readonly string[], path: string): Set<string> | null {
  const out = new Set<string>()
  for (const p of patterns) {
    if (p === '*' || p === `${path}.*`) return null
    if (p.slice(0, p.lastIndexOf('.')) === path) out.add(p.slice(p.lastIndexOf('.') + 1))
  }
  return out
}

/**
 * The schemas `patterns` reach, each with the caller's audience. 400 for a pattern naming no
 * loaded schema (or none of `allowed`, schema keys); 403 when an api client names a schema closed to it,
 * or can read none of those `*` reaches. Compiled once per subscription, never per event.
 */
export function compileViews (
  all: ResourceService[],
  ctx: RequestContext,
  patterns: readonly string[],
  allowed?: readonly string[]
): Map<string, View> {
  const services = allowed === undefined ? all : all.filter((s) => allowed.includes(s.model.key))
  const reached = checkFeedPatterns(patterns, new Set(services.map((s) => s.model.path)))
  const explicit = !patterns.includes('*')
  const views = new Map<string, View>()
  for (const service of services) {
    const { model } = service
    if (!reached.has(model.path)) continue
    const audience = service.eventAudience(ctx)
    if (audience === null) {
      if (explicit) throw new ForbiddenError(`no access to ${model.path} events for this client`, { field: 'types' })
      continue
    }
    const readKey = audience.readable === null ? '*' : [...audience.readable].sort().join(',')
    views.set(model.key, { service, actions: actionsFor(patterns, model.path), audience, readKey })
  }
  if (views.size === 0) throw new ForbiddenError('no schema this caller may read has events to follow')
  return views
}

/** Every action name a schema can emit (for `_describe`). */
export function schemaEventTypes (service: ResourceService): string[] {
  const machines = Object.keys(service.model.stateMachines).length > 0
  return EVENT_ACTIONS.filter((a) => a !== 'transitioned' || machines).map((a) => `${service.model.path}.${a}`)
}
