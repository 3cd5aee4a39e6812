import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { type ResourceService } from '@svc/core'
import { startPeriodic } from '@svc/core/kit'
import { reconcileOnce } from './reconcile/reconciler.js'
import { blobRoute } from './routes/blob-route.js'
import { fileRoutes } from './routes/file-routes.js'
import { FilesService } from './service/files-service.js'
import { purgeBlobs } from './service/purge-blobs.js'
import { LocalDriver } from './storage/local-driver.js'
import { BlobStores, fileFields } from './storage/stores.js'
import { BlobUrls } from './urls/blob-urls.js'
import type { FilesApi, FilesOptions } from './types.js'

export type { FileMeta, FilesApi, FilesOptions, S3StorageOptions, UploadSource } from './types.js'

const HOUR_MS = 60 * 60 * 1000

function positiveInt (name: string, v: number | undefined, dflt: number, min = 1): number {
  const n = v ?? dflt
  if (!Number.isSafeInteger(n) || n < min) throw new Error(`@svc/files: ${name} must be a whole number >= ${min}`)
  return n
}

async function files (app: FastifyInstance, opts: FilesOptions): Promise<void> {
  const ttlSeconds = positiveInt('signedUrlTtlSeconds', opts.signedUrlTtlSeconds, 300)
  const graceMs = positiveInt('orphanGraceMs', opts.orphanGraceMs, HOUR_MS)
  const intervalMs = positiveInt('reconcileIntervalMs', opts.reconcileIntervalMs, HOUR_MS, 0)
  const base = opts.publicBaseUrl ?? app.svc.config.publicBaseUrl
  if (base === undefined || !/^https?:\/\/\S+$/.test(base)) {
    throw new Error('@svc/files: publicBaseUrl (here or in @svc/core) must be an http(s) URL: file URLs are absolute')
  }
  const now = opts.now ?? (() => new Date())
  const log = app.log.child({ name: '@svc/files' })

  const services = app.svc.services.all().filter((s) => fileFields(s.model).length > 0)
  const s3Fields = services.flatMap((s) =>
    fileFields(s.model)
      .filter((f) => f.file?.storage === 's3')
      .map((f) => `${s.model.source} field ${f.name}`)
  )
  if (s3Fields.length > 0 && opts.s3 === undefined) {
    throw new Error(
      `@svc/files: storage 's3' needs the s3 option (STORAGE_S3_BUCKET, STORAGE_S3_REGION): ${s3Fields.join(', ')}`
    )
  }
  const local = new LocalDriver(opts.uploadsDir ?? process.env.UPLOADS_DIR ?? './uploads')
  await local.init()
  // The AWS SDK is loaded only when S3 is configured: it is most of this package's import time.
  const s3 = opts.s3 === undefined ? undefined : new (await import('./storage/s3-driver.js')).S3Driver(opts.s3)
  const stores = new BlobStores(local, s3)
  const urls = new BlobUrls(base, opts.signingSecret ?? app.svc.auth.deriveKey('files-signing'))

  const service = new FilesService({ services: app.svc.services, stores, urls, ttlSeconds, now, log })
  const reconcile = async (): Promise<{ removed: number }> =>
    await reconcileOnce({ services: app.svc.services.all(), stores, graceMs, now, log })
  const api: FilesApi = {
    fields: (path, version) => service.fields(path, version),
    upload: async (...args) => await service.upload(...args),
    fetch: async (...args) => await service.fetch(...args),
    remove: async (...args) => await service.remove(...args),
    reconcile
  }
  app.svc.files = api
  app.svc.features.files = true
  for (const s of services) s.onPurge(purgeBlobs(stores))

  const byVersion = new Map<string, ResourceService[]>()
  for (const s of services) byVersion.set(s.model.version, [...(byVersion.get(s.model.version) ?? []), s])
  for (const [version, list] of byVersion) {
    await app.register(fileRoutes, { prefix: `/api/${version}`, services: list, files: api })
  }
  blobRoute(app, { services, stores, urls, ttlSeconds, now })

  if (intervalMs > 0) {
    let timer: { stop: () => Promise<void> } | null = null
    app.addHook('onReady', async () => {
      timer = startPeriodic('orphan reconciler', reconcile, intervalMs, log)
    })
    app.addHook('onClose', async () => {
      await timer?.stop()
    })
  }
}

export default fp(files, { name: '@svc/files', fastify: '5.x', dependencies: ['@svc/core'] })
export { files }
