import type { Document } from 'mongodb'
import type { FastifyBaseLogger } from 'fastify'
import type { RequestContext } from '../identity.js'
import type { ResourceModel } from '../schema/model.js'
import { readableFields, stripUnreadable } from './acl.js'
import { applyComputed } from './computed.js'
import { toJson } from '../values/convert.js'
import { availableTransitions } from './state-machine.js'
import type { RecordJson } from './types.js'

/**
 * The single output boundary: every record the service hands out (reads, write answers, hook
 * `record`s, populated relations) goes through here, in this order: BSON → JSON, computed
 * fields from the full stored record, `availableTransitions`, then the caller's read ACL, which
 * also strips computed and state fields the caller may not see.
 */
export function presentRecord (
  model: ResourceModel,
  ctx: RequestContext,
  doc: Document,
  log: FastifyBaseLogger,
  readable = readableFields(model, ctx)
): RecordJson {
  const record = toJson<RecordJson>(doc)
  applyComputed(model, record, log)
  const transitions = availableTransitions(model, record, readable)
  if (transitions !== undefined) record.availableTransitions = transitions
  stripUnreadable(record, readable)
  return record
}
