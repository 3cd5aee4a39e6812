import type { Document } from 'mongodb'
import type { FastifyBaseLogger } from 'fastify'
import { InvalidTransitionError, ValidationError } from '../errors.js'
import type { ResourceModel } from '../schema/model.js'
import type { StateMachineDefinition } from '../schema/define.js'
import { modelFacts } from './model-facts.js'

export interface Transition {
  field: string
  from: string | null
  to: string
}

function reachable (sm: StateMachineDefinition, current: unknown): string[] {
  // A record stored before the machine existed has no state: its only way in is `initial`.
  if (typeof current !== 'string') return [sm.initial]
  return Object.hasOwn(sm.transitions, current) ? [...sm.transitions[current]] : []
}

/**
 * `availableTransitions` for a read: with one state machine the spec's flat list of reachable
 * states; with several, `{ <field>: [...] }`. Fields the caller cannot read are left out.
 */
export function availableTransitions (
  model: ResourceModel,
  record: Record<string, unknown>,
  readable: Set<string> | null
): unknown {
  const entries = modelFacts(model).machines
  if (entries.length === 0) return undefined
  const visible = entries.filter(([field]) => readable === null || readable.has(field))
  if (entries.length === 1) return visible.length === 1 ? reachable(visible[0][1], record[visible[0][0]]) : undefined
  return Object.fromEntries(visible.map(([field, sm]) => [field, reachable(sm, record[field])]))
}

/** On create the state is always `initial` (stamped before beforeCreate); asking for another is a transition from nothing. */
export function checkInitial (model: ResourceModel, input: Record<string, unknown>): void {
  for (const [field, sm] of Object.entries(model.stateMachines)) {
    const v = input[field]
    if (v !== undefined && v !== null && v !== sm.initial) {
      throw new InvalidTransitionError(
        `${field} starts in '${sm.initial}'; '${String(v)}' must be reached by a transition`,
        { field, current: null, attempted: v, allowed: [sm.initial] }
      )
    }
  }
}

/** Sets every state field to `initial` (fields already pinned by `except`, a bulk upsert's filter, are left to it). */
export function stampInitial (
  model: ResourceModel,
  input: Record<string, unknown>,
  except: Record<string, unknown> = {}
): void {
  for (const [field, sm] of Object.entries(model.stateMachines)) {
    if (!Object.hasOwn(except, field)) input[field] = sm.initial
  }
}

/**
 * Validates every state change of an update against `transitions[current]`; runs after
 * beforeUpdate, so a hook's change is checked like a client's. Returns the real transitions.
 */
export function planTransitions (
  model: ResourceModel,
  current: Document,
  set: Record<string, unknown>,
  unset: string[]
): Transition[] {
  const out: Transition[] = []
  for (const [field, sm] of Object.entries(model.stateMachines)) {
    const from = typeof current[field] === 'string' ? (current[field] as string) : null
    const allowed = reachable(sm, from)
    if (unset.includes(field)) {
      throw new InvalidTransitionError(`${field} cannot be cleared`, { field, current: from, attempted: null, allowed })
    }
    if (!Object.hasOwn(set, field) || set[field] === from) continue
    const to = set[field] as string
    if (!allowed.includes(to)) {
      throw new InvalidTransitionError(`${field} cannot move from '${String(from)}' to '${to}'`, {
        field,
        current: from,
        attempted: to,
        allowed
      })
    }
    out.push({ field, from, to })
  }
  return out
}

/** The conditional part of the write: each transitioning field must still hold its `from` value. */
export function transitionGuard (transitions: Transition[]): Document {
  return Object.fromEntries(transitions.map((t) => [t.field, t.from]))
}

/** Bulk writes never move states: one record at a time, through the transition table. */
export function refuseBulkState (model: ResourceModel, record: unknown): void {
  if (typeof record !== 'object' || record === null) return
  for (const field of Object.keys(model.stateMachines)) {
    if (Object.hasOwn(record, field)) {
      throw new ValidationError(`${field} is a state field: change it with PUT /${model.path}/:id`, {
        field: `record.${field}`
      })
    }
  }
}

/** A bulk upsert may only create records in the initial state (a filter `stage=won` must not seed a won record). */
export function legalSeed (model: ResourceModel, filter: Document): boolean {
  return Object.entries(model.stateMachines).every(
    ([field, sm]) => !Object.hasOwn(filter, field) || filter[field] === sm.initial
  )
}

/** `onEnter[to]` after a committed transition: best-effort, a failure is logged and never surfaced. */
export async function runOnEnter (
  model: ResourceModel,
  t: Transition,
  arg: Record<string, unknown>,
  log: FastifyBaseLogger
): Promise<void> {
  const fn = model.stateMachines[t.field].onEnter?.[t.to]
  if (fn === undefined) return
  try {
    await fn({ ...arg, field: t.field, from: t.from, to: t.to })
  } catch (err) {
    log.error({ err, path: model.path, field: t.field, state: t.to }, 'onEnter failed')
  }
}
