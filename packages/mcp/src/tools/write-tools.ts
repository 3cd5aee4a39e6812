import type { ResourceModel } from '@svc/core/kit'
import { recordInput, recordOutput } from '../schema/records.js'
import type { McpTool } from '../types.js'
import { args, idArg, serviceOf, toolPath, type BuildContext } from './shared.js'

const OWNERSHIP = "The record belongs to the caller's tenant (userId from the token)."
// Core's Idempotency-Key rule, stated for the model.
const KEY = {
  type: 'string',
  pattern: '^[\\x21-\\x7E]{1,255}$',
  description:
    'optional: a unique key (1-255 printable characters, e.g. a UUID) for this create; a retry with the same key and record returns the first record instead of creating a second one, another record with the same key is CONFLICT'
}

function stateNote (model: ResourceModel): string {
  const fields = Object.keys(model.stateMachines)
  if (fields.length === 0) return ''
  return ` State field${fields.length > 1 ? 's' : ''} ${fields.join(', ')} start${fields.length > 1 ? '' : 's'} in the initial state on create.`
}

/** `create_<path>`: the REST create, with an optional idempotency key. */
export function createTool (b: BuildContext, model: ResourceModel): McpTool {
  const service = serviceOf(b, model)
  return {
    model,
    audience: 'user',
    action: { name: 'create' },
    definition: {
      name: `create_${toolPath(model)}`,
      title: `Create a ${model.path} record`,
      description: `Create one ${model.path} record and return it as stored (defaults applied, computed fields filled). ${OWNERSHIP}${stateNote(model)} Unknown fields are VALIDATION errors; fields your roles may not set are FORBIDDEN.`,
      inputSchema: args({ record: recordInput(model, 'create'), idempotencyKey: KEY }, ['record']),
      outputSchema: recordOutput(model, b.softDelete(model)),
      annotations: {
        title: `Create ${model.path}`,
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: false
      }
    },
    screen: (ctx, a) => {
      service.screenWrite(ctx, a.record, 'create')
    },
    run: async (ctx, a) => {
      if (typeof a.idempotencyKey === 'string') {
        const { record, replayed } = await service.createOnce(ctx, a.record, a.idempotencyKey)
        return {
          structured: record,
          summary: replayed
            ? `${model.path} ${record._id} was already created with this idempotency key; nothing new was created`
            : `Created ${model.path} ${record._id}`
        }
      }
      const record = await service.create(ctx, a.record)
      return { structured: record, summary: `Created ${model.path} ${record._id}` }
    }
  }
}

/** `update_<path>`: the REST PUT by id; a state field moves only along its transition table (the spec's "MCP equivalent" of a transition). */
export function updateTool (b: BuildContext, model: ResourceModel): McpTool {
  const service = serviceOf(b, model)
  const machines = Object.keys(model.stateMachines)
  const transition =
    machines.length === 0
      ? ''
      : ` To move a state field (${machines.join(', ')}), send its new state: only states listed in the record's availableTransitions are accepted (INVALID_TRANSITION otherwise, with details.allowed).`
  return {
    model,
    audience: 'user',
    action: { name: 'update' },
    definition: {
      name: `update_${toolPath(model)}`,
      title: `Update a ${model.path} record`,
      description: `Change some fields of one ${model.path} record by id; fields not sent keep their values, null clears an optional field. Returns the updated record.${transition} Only the caller's own records can be changed (NOT_FOUND otherwise).`,
      inputSchema: args({ id: idArg(model), record: recordInput(model, 'update') }, ['id', 'record']),
      outputSchema: recordOutput(model, b.softDelete(model)),
      annotations: {
        title: `Update ${model.path}`,
        readOnlyHint: false,
        destructiveHint: true,
        idempotentHint: true,
        openWorldHint: false
      }
    },
    screen: (ctx, a) => {
      service.screenWrite(ctx, a.record, 'update')
    },
    run: async (ctx, a) => {
      const record = await service.updateById(ctx, a.id as string, a.record)
      return { structured: record, summary: `Updated ${model.path} ${record._id}` }
    }
  }
}

/** `delete_<path>`: a restorable tombstone with soft delete on, a removal otherwise. */
export function deleteTool (b: BuildContext, model: ResourceModel): McpTool {
  const service = serviceOf(b, model)
  const soft = b.softDelete(model)
  const effect = soft
    ? `It is kept as deleted and can be brought back with restore_${toolPath(model)}.`
    : 'The removal is permanent.'
  const who =
    model.acl.delete.length > 0
      ? `the caller's own records, or any record for roles ${model.acl.delete.join(', ')}`
      : "the caller's own records only"
  return {
    model,
    audience: 'user',
    action: { name: 'delete' },
    definition: {
      name: `delete_${toolPath(model)}`,
      title: `Delete a ${model.path} record`,
      description: `Delete one ${model.path} record by id (${who}). ${effect} Returns the record as it was.`,
      inputSchema: args({ id: idArg(model) }, ['id']),
      outputSchema: recordOutput(model, soft),
      annotations: {
        title: `Delete ${model.path}`,
        readOnlyHint: false,
        destructiveHint: true,
        idempotentHint: true,
        openWorldHint: false
      }
    },
    run: async (ctx, a) => {
      const record = await service.deleteById(ctx, a.id as string)
      return { structured: record, summary: `Deleted ${model.path} ${record._id}${soft ? ' (restorable)' : ''}` }
    }
  }
}
