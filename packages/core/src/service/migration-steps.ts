import { isDeepStrictEqual } from 'node:util'
import type { Document } from 'mongodb'
import { SYSTEM_FIELDS } from '../schema/model.js'
import type { RecordJson } from './types.js'

/** One pending migration as it applies to one resource. */
export interface MigrationStep {
  /** `0001-backfill-region`. */
  name: string
  /** Selects the stored records `up` is given (a MongoDB filter, evaluated by the database). */
  filter?: Document
  up: (record: Record<string, unknown>) => unknown
}

/** What one migration did to one record (an audit row's images). */
export interface StepImage {
  migration: string
  before: RecordJson
  after: RecordJson
}

/** A migration's `up` threw or answered something that is not a record. */
export class MigrationStepError extends Error {
  readonly migration: string
  readonly recordId: string
  constructor (migration: string, recordId: string, problem: string, cause?: unknown) {
    super(`migration ${migration} on record ${recordId}: ${problem}`, cause === undefined ? undefined : { cause })
    this.name = 'MigrationStepError'
    this.migration = migration
    this.recordId = recordId
  }
}

function isRecord (v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date)
}

/** Ids, ownership and timestamps are the service's: whatever `up` did to them, the stored values stay. */
function restamp (out: Record<string, unknown>, stored: RecordJson): RecordJson {
  for (const k of SYSTEM_FIELDS) {
    if (Object.hasOwn(stored, k)) out[k] = stored[k]
    else delete out[k]
  }
  return out as RecordJson
}

/**
 * Runs `steps` in order over one record (JSON form), each on a copy of the previous one's result;
 * answers the final record and the images of the steps that changed something. Pure but for
 * what `up` itself does; nothing is written here.
 */
export async function runSteps (
  steps: readonly MigrationStep[],
  record: RecordJson
): Promise<{ output: RecordJson; images: StepImage[] }> {
  const images: StepImage[] = []
  let current = record
  for (const step of steps) {
    const copy = structuredClone(current) as Record<string, unknown>
    let answer: unknown
    try {
      answer = await step.up(copy)
    } catch (err) {
      throw new MigrationStepError(step.name, record._id, `up threw: ${(err as Error)?.message ?? String(err)}`, err)
    }
    const out = answer === undefined || answer === null ? copy : answer
    if (!isRecord(out)) {
      throw new MigrationStepError(step.name, record._id, 'up must return the record (an object) or nothing')
    }
    const next = restamp(JSON.parse(JSON.stringify(out)) as Record<string, unknown>, record)
    if (!isDeepStrictEqual(next, current)) images.push({ migration: step.name, before: current, after: next })
    current = next
  }
  return { output: current, images }
}
