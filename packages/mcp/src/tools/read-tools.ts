import { type ListQuery } from '@svc/core'
import { MAX_Q_LENGTH, searchablePaths, type ResourceModel } from '@svc/core/kit'
import { filterExample, filterSchema, sortSchema } from '../schema/filter.js'
import { listOutput, recordOutput } from '../schema/records.js'
import type { McpTool, ToolArgs } from '../types.js'
import {
  READ_ONLY,
  args,
  cursorArgs,
  idArg,
  includeArg,
  includeDeletedArg,
  pageArgs,
  serviceOf,
  tenantNote,
  toolPath,
  type BuildContext
} from './shared.js'

/** Tool arguments as core's ListQuery; MCP pages default to the MCP page size. */
export function listQuery (a: ToolArgs, perPage?: number): ListQuery {
  const q: ListQuery = {}
  if (perPage !== undefined) q.perPage = perPage
  if (a.filter !== undefined) q.filter = a.filter as Record<string, unknown>
  if (a.sort !== undefined) q.sort = a.sort as string
  if (a.page !== undefined) q.page = a.page as number
  if (a.perPage !== undefined) q.perPage = a.perPage as number
  if (a.include !== undefined) q.include = a.include as string[]
  if (a.includeDeleted === true) q.includeDeleted = true
  if (a.q !== undefined) q.q = a.q as string
  if (a.cursor !== undefined) q.cursor = a.cursor as string
  if (a.count !== undefined) q.count = a.count as boolean
  return q
}

const PAGING =
  'Answers one page: nextCursor (null on the last page) continues the walk as cursor; totalResults and totalPages count the matches unless count is false.'

/** `list_<path>`: the REST list (filters, sort, paging, include, includeDeleted) for a model. */
export function listTool (b: BuildContext, model: ResourceModel): McpTool {
  const service = serviceOf(b, model)
  const name = `list_${toolPath(model)}`
  return {
    model,
    audience: 'read',
    action: { name: 'list' },
    definition: {
      name,
      title: `List ${model.path}`,
      description: `List ${model.path} records, newest first unless sorted, optionally filtered. ${tenantNote(model)} ${PAGING} Filter example: ${JSON.stringify(filterExample(model))}.`,
      inputSchema: args({
        filter: filterSchema(model),
        sort: sortSchema(model),
        ...pageArgs(b),
        ...cursorArgs(),
        ...includeArg(model),
        ...includeDeletedArg(b, model)
      }),
      outputSchema: listOutput(recordOutput(model, b.softDelete(model)), `${model.path} records`, true),
      annotations: { title: `List ${model.path}`, ...READ_ONLY }
    },
    run: async (ctx, a) => {
      const page = await service.list(ctx, listQuery(a, b.perPage))
      return {
        structured: { ...page },
        summary: `${page.results.length} of ${page.totalResults ?? 'uncounted'} ${model.path} (page ${page.page}${page.totalPages === null ? '' : ` of ${page.totalPages}`})`,
        list: 'results'
      }
    }
  }
}

/** `search_<path>`: text search over the schema's searchable fields, best match first. */
export function searchTool (b: BuildContext, model: ResourceModel): McpTool | undefined {
  const fields = searchablePaths(model)
  if (fields.length === 0) return undefined
  const service = serviceOf(b, model)
  const name = `search_${toolPath(model)}`
  return {
    model,
    audience: 'read',
    action: { name: 'search' },
    definition: {
      name,
      title: `Search ${model.path}`,
      description: `Full-text search of ${model.path} over ${fields.join(', ')} (whole words, any of them; "a phrase" in double quotes, -word to exclude), best match first. Combine with filter to narrow. ${tenantNote(model)} ${PAGING}`,
      inputSchema: args(
        {
          q: {
            type: 'string',
            minLength: 1,
            maxLength: MAX_Q_LENGTH,
            description: `the words to look for in ${fields.join(', ')}`
          },
          filter: filterSchema(model),
          sort: sortSchema(model, true),
          ...pageArgs(b),
          ...cursorArgs(),
          ...includeArg(model),
          ...includeDeletedArg(b, model)
        },
        ['q']
      ),
      outputSchema: listOutput(
        recordOutput(model, b.softDelete(model)),
        `${model.path} records, best match first`,
        true
      ),
      annotations: { title: `Search ${model.path}`, ...READ_ONLY }
    },
    run: async (ctx, a) => {
      const page = await service.list(ctx, listQuery(a, b.perPage))
      return {
        structured: { ...page },
        summary: `${page.totalResults ?? page.results.length} ${model.path} match "${String(a.q)}" (page ${page.page}${page.totalPages === null ? '' : ` of ${page.totalPages}`})`,
        list: 'results'
      }
    }
  }
}

/** `get_<path>`: one record by id, with `include` and `includeDeleted`. */
export function getTool (b: BuildContext, model: ResourceModel): McpTool {
  const service = serviceOf(b, model)
  const name = `get_${toolPath(model)}`
  return {
    model,
    audience: 'read',
    action: { name: 'get' },
    definition: {
      name,
      title: `Get one ${model.path} record`,
      description: `Read one ${model.path} record by its id, optionally with related records embedded. ${tenantNote(model)} An unknown id, another tenant's record or a deleted one (unless includeDeleted) is NOT_FOUND.`,
      inputSchema: args({ id: idArg(model), ...includeArg(model), ...includeDeletedArg(b, model) }, ['id']),
      outputSchema: recordOutput(model, b.softDelete(model)),
      annotations: { title: `Get ${model.path}`, ...READ_ONLY }
    },
    run: async (ctx, a) => {
      const record = await service.get(ctx, a.id as string, listQuery(a))
      return { structured: record, summary: `${model.path} ${record._id}` }
    }
  }
}
