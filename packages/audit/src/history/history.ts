import { NotFoundError, ValidationError, type RequestContext, type ResourceService } from '@svc/core'
import type { AuditStore } from '../store/audit-store.js'
import type { HistoryPage } from '../types.js'
import { readableFor, toEntry } from './project.js'

const HEX24 = /^[0-9a-fA-F]{24}$/

function positiveInt (name: string, v: unknown, fallback: number, max = Number.MAX_SAFE_INTEGER): number {
  if (v === undefined) return fallback
  const n = typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 1) throw new ValidationError(`${name} must be a positive integer`, { field: name })
  return Math.min(n, max)
}

/**
 * Whose history the caller may read. Whoever can read the record (the owner, with tombstones
 * included) reads it under the record's tenant. A record gone for good (hard delete, purged
 * tombstone) can no longer be read, so its tenant's own rows decide: the former owner keeps
 * its history, anybody else gets the same 404 as for an unknown id.
 */
async function tenantOf (service: ResourceService, ctx: RequestContext, id: string): Promise<{ userId: string, gone: boolean }> {
  if (!HEX24.test(id)) throw new NotFoundError(`${service.model.path} not found`)
  try {
    const rec = await service.get(ctx, id, { includeDeleted: true })
    if (typeof rec.userId === 'string') return { userId: rec.userId, gone: false }
  } catch (err) {
    if ((err as { statusCode?: number }).statusCode !== 404) throw err
  }
  const own = ctx.identity?.kind === 'user' ? ctx.identity.userId : null
  if (own == null) throw new NotFoundError(`${service.model.path} not found`)
  return { userId: own, gone: true }
}

export async function readHistory (store: AuditStore, service: ResourceService, ctx: RequestContext, id: string, paging: { page?: unknown, perPage?: unknown }, defaultPerPage: number):
Promise<HistoryPage> {
  const page = positiveInt('__page', paging.page, 1)
  const perPage = positiveInt('__perPage', paging.perPage, defaultPerPage, 200)
  const { userId, gone } = await tenantOf(service, ctx, id)
  const filter = { userId, path: service.model.path, recordId: id }
  const [rows, totalResults] = await Promise.all([
    store.log.find(filter, { sort: { at: -1, _id: -1 }, skip: (page - 1) * perPage, limit: perPage }).toArray(),
    store.log.countDocuments(filter)
  ])
  if (gone && totalResults === 0) throw new NotFoundError(`${service.model.path} not found`)
  const readable = readableFor(service, ctx)
  const totalPages = Math.ceil(totalResults / perPage)
  return {
    results: rows.map((r) => toEntry(r, readable)),
    totalResults,
    page,
    perPage,
    totalPages,
    nextPage: page < totalPages ? page + 1 : null,
    prevPage: page > 1 ? Math.min(page - 1, Math.max(totalPages, 1)) : null
  }
}
