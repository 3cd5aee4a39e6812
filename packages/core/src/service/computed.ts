import type { FastifyBaseLogger } from 'fastify'
import type { ResourceModel } from '../schema/model.js'
import { toJson } from '../values/convert.js'
import { modelFacts } from './model-facts.js'

/**
 * Computed fields are derived on every read from the stored record (JSON form, the same shape
 * every surface sees), never stored. Each function gets its own deep copy, so a function that
 * mutates its argument cannot change the stored values another one sees or the answer.
 * A throwing function yields null and a log line: one bad formula never breaks a list.
 */
export function applyComputed (model: ResourceModel, record: Record<string, unknown>, log: FastifyBaseLogger): void {
  const fields = modelFacts(model).computed
  if (fields.length === 0) return
  // A value stored under a computed name (legacy data, a raw insert) never leaks or feeds a formula.
  for (const f of fields) delete record[f.name]
  const values: Record<string, unknown> = {}
  for (const f of fields) {
    try {
      const v = f.computed!(structuredClone(record))
      values[f.name] = v === undefined ? null : toJson(v)
    } catch (err) {
      log.warn({ err, path: model.path, field: f.name, recordId: record._id }, 'computed field failed')
      values[f.name] = null
    }
  }
  Object.assign(record, values)
}

export function hasComputed (model: ResourceModel): boolean {
  return model.fields.some((f) => f.computed !== undefined)
}
