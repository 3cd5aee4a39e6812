import type { ResourceModel } from '@svc/core/kit'
import { listOutput, recordOutput } from '../schema/records.js'
import type { JsonSchema, McpTool } from '../types.js'
import { READ_ONLY, args, idArg, pageArgs, toolPath, type BuildContext } from './shared.js'

// Operations the soft delete and audit plugins add to the service, offered only where effective.

/** `restore_<path>`: soft delete loaded and on for the schema. */
export function restoreTool (b: BuildContext, model: ResourceModel): McpTool | undefined {
  const restore = b.restore
  if (restore === undefined || !b.softDelete(model)) return undefined
  return {
    model,
    audience: 'user',
    action: { name: 'restore' },
    definition: {
      name: `restore_${toolPath(model)}`,
      title: `Restore a deleted ${model.path} record`,
      description: `Bring back one deleted ${model.path} record by id (same permission as delete_${toolPath(model)}); returns it live again. A record that is not deleted, or not the caller's, is NOT_FOUND. Find deleted records with list_${toolPath(model)} and includeDeleted: true.`,
      inputSchema: args({ id: idArg(model) }, ['id']),
      outputSchema: recordOutput(model, true),
      annotations: {
        title: `Restore ${model.path}`,
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false
      }
    },
    run: async (ctx, a) => {
      const record = await restore(ctx, model.path, a.id as string, model.version)
      return { structured: record, summary: `Restored ${model.path} ${record._id}` }
    }
  }
}

const IMAGE: JsonSchema = { type: ['object', 'null'], additionalProperties: true }
const HISTORY_ENTRY: JsonSchema = {
  type: 'object',
  properties: {
    _id: { type: 'string' },
    action: { type: 'string', description: 'create, update, delete, restore or transition' },
    recordId: { type: 'string' },
    userId: { type: ['string', 'null'], description: "the record's tenant" },
    actor: { type: 'object', description: 'who did it: kind, userId, email, roles', additionalProperties: true },
    before: { ...IMAGE, description: 'the record before the change (fields you may read)' },
    after: { ...IMAGE, description: 'the record after the change' },
    diff: {
      type: 'object',
      additionalProperties: { type: 'object', properties: { from: {}, to: {} } },
      description: 'changed fields: { field: { from, to } }'
    },
    at: { type: 'string', format: 'date-time' }
  },
  required: ['_id', 'action', 'recordId', 'before', 'after', 'diff', 'at']
}

/** `history_<path>`: audit loaded and on for the schema. */
export function historyTool (b: BuildContext, model: ResourceModel): McpTool | undefined {
  const history = b.history
  if (history === undefined || !b.audit(model)) return undefined
  return {
    model,
    audience: 'user',
    action: { name: 'history' },
    definition: {
      name: `history_${toolPath(model)}`,
      title: `History of a ${model.path} record`,
      description: `The change history of one ${model.path} record, newest first: who created, updated, moved, deleted or restored it and what changed (fields you may not read are left out). Works for deleted records too. Needs a signed-in user.`,
      inputSchema: args({ id: idArg(model), ...pageArgs(b) }, ['id']),
      outputSchema: listOutput(HISTORY_ENTRY, 'changes, newest first'),
      annotations: { title: `History of ${model.path}`, ...READ_ONLY }
    },
    run: async (ctx, a) => {
      const page = await history(
        ctx,
        model.path,
        a.id as string,
        { page: a.page as number | undefined, perPage: (a.perPage as number | undefined) ?? b.perPage },
        model.version
      )
      return {
        structured: { ...page },
        summary: `${page.totalResults} changes to ${model.path} ${String(a.id)} (page ${page.page} of ${page.totalPages})`,
        list: 'results'
      }
    }
  }
}
