import { ForbiddenError, NotFoundError, type RequestContext, type ResourceService } from '@svc/core'
import { buildPaging, listEnvelope, parseId } from '@svc/core/kit'
import type { AuditStore } from '../store/audit-store.js'
import type { HistoryPage } from '../types.js'
import { readableFor, toEntry } from './project.js'

/**
 * Whose history the caller may read. Whoever can read the record (the owner, with tombstones
 * included) reads it under the record's tenant. A record gone for good (hard delete, purged
 * tombstone) can no longer be read, so its tenant's own rows decide: the former owner keeps
 * its history, anybody else gets the same 404 as for an unknown id.
 */
async function tenantOf (
  service: ResourceService,
  ctx: RequestContext,
  id: string
): Promise<{ userId: string; gone: boolean }> {
  if (parseId(id) == null) throw new NotFoundError(`${service.model.path} not found`)
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

export async function readHistory (
  store: AuditStore,
  service: ResourceService,
  ctx: RequestContext,
  id: string,
  paging: { page?: unknown; perPage?: unknown },
  defaultPerPage: number
): Promise<HistoryPage> {
  // Before-images may hold values an api client's public scope never shows; REST's route says the same.
  if (ctx.identity?.kind === 'client') {
    throw new ForbiddenError('api clients cannot read history: it needs a signed-in user')
  }
  const { page, perPage, skip } = buildPaging(paging.page, paging.perPage, defaultPerPage)
  const { userId, gone } = await tenantOf(service, ctx, id)
  const filter = { userId, path: service.model.path, recordId: id }
  const { maxTimeMS } = service
  const [rows, totalResults] = await Promise.all([
    store.log.find(filter, { sort: { at: -1, _id: -1 }, skip, limit: perPage, maxTimeMS }).toArray(),
    store.log.countDocuments(filter, { maxTimeMS })
  ])
  if (gone && totalResults === 0) throw new NotFoundError(`${service.model.path} not found`)
  const readable = readableFor(service, ctx)
  return listEnvelope(
    rows.map((r) => toEntry(r, readable)),
    totalResults,
    page,
    perPage
  )
}
