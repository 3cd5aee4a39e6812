import { type ResourceService, type SvcContext } from '@svc/core'
import { DEFAULT_VERSION, type ResourceModel } from '@svc/core/kit'
import type { Tool } from '@modelcontextprotocol/sdk/types.js'
import type { AuditApi } from '@svc/audit'
import type { FilesApi } from '@svc/files'
import type { SoftDeleteApi } from '@svc/softdelete'
import type { JsonSchema } from '../types.js'

/** MCP pages are smaller than core's MAX_PAGE_SIZE: every row lands in a model's context window. */
export const MAX_PER_PAGE = 100

/** What every tool builder reads: the finished registry and which optional plugins are loaded. */
export interface BuildContext {
  svc: SvcContext
  /** The service's default page size (core's `pageSize`), capped at MAX_PER_PAGE. */
  perPage: number
  softDelete: (model: ResourceModel) => boolean
  audit: (model: ResourceModel) => boolean
  /** The operations @svc/softdelete and @svc/audit add, when those plugins are loaded. */
  restore?: SoftDeleteApi['restore']
  history?: AuditApi['history']
  /** @svc/files' operations, when that plugin is loaded. */
  files?: FilesApi
}

export function buildContext (svc: SvcContext): BuildContext {
  return {
    svc,
    perPage: Math.min(svc.config.pageSize, MAX_PER_PAGE),
    // Effective only when the schema keeps the feature on and its plugin is loaded (as `_describe` says).
    softDelete: (m) => svc.softDelete !== undefined && svc.manifest.softDelete(m),
    audit: (m) => svc.audit !== undefined && svc.manifest.audit(m),
    restore: svc.softDelete?.restore,
    history: svc.audit?.history,
    files: svc.files
  }
}

/** `<path>` in tool names; schemas outside the default version carry it: `list_v2_contacts`. */
export function toolPath (model: ResourceModel): string {
  return model.version === DEFAULT_VERSION ? model.path : `${model.version}_${model.path}`
}

export function serviceOf (b: BuildContext, model: ResourceModel): ResourceService {
  return b.svc.services.get(model.path, model.version)
}

/** Who sees which records, in one sentence a model can act on. */
export function tenantNote (model: ResourceModel): string {
  const bypass = model.acl.list.length > 0 ? ` (roles ${model.acl.list.join(', ')} list every tenant's records)` : ''
  return `Only records of the caller's own tenant are visible${bypass}; api clients (X-Client-Id) see only the records the schema makes public.`
}

export function idArg (model: ResourceModel): JsonSchema {
  return {
    type: 'string',
    minLength: 1,
    maxLength: 64,
    description: `the ${model.path} record id (_id, 24 hex characters)`
  }
}

export function pageArgs (b: BuildContext): Record<string, JsonSchema> {
  return {
    page: { type: 'integer', minimum: 1, description: '1-based page number; default 1' },
    perPage: {
      type: 'integer',
      minimum: 1,
      maximum: MAX_PER_PAGE,
      description: `results per page; default ${b.perPage}, at most ${MAX_PER_PAGE}`
    }
  }
}

/** Record lists (CONTRACT "Lists: cursors and counts"): continue by cursor, skip the count. */
export function cursorArgs (): Record<string, JsonSchema> {
  return {
    cursor: {
      type: 'string',
      minLength: 1,
      maxLength: 4096,
      description: 'nextCursor of the previous answer: the page after it (same filter, sort and perPage; no page)'
    },
    count: {
      type: 'boolean',
      description: 'false skips counting (totalResults and totalPages are null): faster on large lists; default true'
    }
  }
}

export function includeArg (model: ResourceModel): Record<string, JsonSchema> {
  const relations = Object.values(model.relations)
  if (relations.length === 0) return {}
  const names = relations.map(
    (r) => `${r.name} (${r.kind === 'hasMany' ? `list of ${r.target}` : `one ${r.target} record or null`})`
  )
  return {
    include: {
      type: 'array',
      items: { type: 'string', enum: relations.map((r) => r.name) },
      uniqueItems: true,
      description: `related records to embed in each result, one hop: ${names.join(', ')}`
    }
  }
}

export function includeDeletedArg (b: BuildContext, model: ResourceModel): Record<string, JsonSchema> {
  if (!b.softDelete(model)) return {}
  return {
    includeDeleted: {
      type: 'boolean',
      description: `also return deleted records (they carry deletedAt and can be restored with restore_${toolPath(model)}); default false`
    }
  }
}

/** An object schema that refuses unknown arguments, so a typo is an error instead of being ignored. */
export function args (properties: Record<string, JsonSchema>, required: string[] = []): Tool['inputSchema'] {
  return { type: 'object', properties, required, additionalProperties: false }
}

export const READ_ONLY = { readOnlyHint: true, openWorldHint: false } as const
