import type { FastifyInstance, FastifyReply } from 'fastify'
import send from '@fastify/send'
import { ForbiddenError, NotFoundError, type ResourceService, SYSTEM_CONTEXT } from '@svc/core'
import { parseId } from '@svc/core/kit'
import { parseKey } from '../storage/keys.js'
import type { BlobStores } from '../storage/stores.js'
import { BLOB_ROUTE_PREFIX, type BlobUrls } from '../urls/blob-urls.js'
import { blobHeaders } from '../urls/disposition.js'

export interface BlobRouteOptions {
  services: ResourceService[]
  stores: BlobStores
  urls: BlobUrls
  ttlSeconds: number
  now: () => Date
}

interface Found {
  service: ResourceService
  meta: { key: string; contentType: string; originalName: string }
  visibility: 'private' | 'public'
}

// Every response that carries tenant content: never sniffed, never a page of our origin.
const SAFE_HEADERS = { 'x-content-type-options': 'nosniff', 'content-security-policy': "default-src 'none'; sandbox" }

/**
 * `GET <prefix>/<key>`: downloads. A private file needs a valid, unexpired signature (403
 * otherwise, checked before any lookup); then the key must still be named by a live record's
 * field (404 for a replaced or deleted file, or a tombstoned record). Local blobs are streamed
 * with Range support; S3 blobs are a redirect to a fresh presigned URL (public files' stable URL).
 */
export function blobRoute (app: FastifyInstance, opts: BlobRouteOptions): void {
  app.get(`${BLOB_ROUTE_PREFIX}/*`, async (request, reply) => {
    const key = (request.params as { '*': string })['*']
    const parsed = parseKey(key)
    const _id = parsed == null ? null : parseId(parsed.id)
    if (parsed == null || _id == null) throw new NotFoundError('file not found')
    const query = request.query as Record<string, unknown>
    let forbidden: Error | undefined
    for (const service of opts.services) {
      const field = service.model.path === parsed.path ? service.model.fieldsByPath.get(parsed.field) : undefined
      if (field?.file === undefined) continue
      if (field.file.visibility === 'private') {
        const verdict = opts.urls.verify(key, query.exp, query.sig, opts.now())
        if (verdict !== 'ok') {
          forbidden = new ForbiddenError(
            verdict === 'expired'
              ? 'this link has expired; fetch the file again for a new one'
              : 'invalid file signature'
          )
          continue
        }
      }
      const meta = await service.fileNamingKey(SYSTEM_CONTEXT, _id, field.name, key)
      if (meta == null) continue
      const found: Found = { service, meta: meta as Found['meta'], visibility: field.file.visibility }
      return await serve(reply, request.raw, found, opts, opts.stores.for(field))
    }
    throw forbidden ?? new NotFoundError('file not found')
  })
}

async function serve (
  reply: FastifyReply,
  raw: FastifyReply['request']['raw'],
  found: Found,
  opts: BlobRouteOptions,
  driver: ReturnType<BlobStores['for']>
): Promise<FastifyReply> {
  const headers = blobHeaders(found.meta)
  const cache = found.visibility === 'public' ? 'public, max-age=60' : 'private, no-store'
  const direct = await driver.directUrl(found.meta.key, headers, opts.ttlSeconds)
  if (direct !== undefined) return await reply.header('cache-control', 'no-store').redirect(direct, 302)
  const res = await send(raw, found.meta.key, {
    root: opts.stores.local.root,
    contentType: false,
    cacheControl: false,
    index: false,
    dotfiles: 'deny',
    extensions: false
  })
  if (res.type === 'error') {
    // 416 keeps its Content-Range; a record naming a missing blob is a 404, like a missing record.
    if (res.statusCode === 416) {
      return await reply
        .code(416)
        .header('content-range', res.headers['Content-Range'])
        .send({ error: { code: 'VALIDATION', message: 'range not satisfiable' } })
    }
    throw new NotFoundError('file not found')
  }
  return await reply
    .code(res.statusCode)
    .headers({
      ...res.headers,
      ...SAFE_HEADERS,
      'content-type': headers.contentType,
      'content-disposition': headers.contentDisposition,
      'cache-control': cache
    })
    .send(res.stream)
}
