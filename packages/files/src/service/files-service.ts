import type { FastifyBaseLogger } from 'fastify'
import type { Document } from 'mongodb'
import {
  NotFoundError,
  ValidationError,
  type RequestContext,
  type ResourceService,
  type ResourceServices
} from '@svc/core'
import { toJson, type FieldModel } from '@svc/core/kit'
import type { StorageDriver } from '../storage/driver.js'
import { newBlobKey } from '../storage/keys.js'
import { BlobStores, fileFields } from '../storage/stores.js'
import { safeFileName } from '../upload/file-name.js'
import { inspectUpload } from '../upload/inspect.js'
import type { BlobUrls } from '../urls/blob-urls.js'
import { blobHeaders } from '../urls/disposition.js'
import type { FileMeta, FilesApi, UploadSource } from '../types.js'

export interface FilesServiceDeps {
  services: ResourceServices
  stores: BlobStores
  urls: BlobUrls
  ttlSeconds: number
  now: () => Date
  log: FastifyBaseLogger
}

interface Target {
  service: ResourceService
  field: FieldModel
  driver: StorageDriver
}

/**
 * The file operations every surface calls. Checks and record writes are core's (tenancy, field
 * ACL, no hooks, audit rows and `<path>.updated`); this adds the blobs around them, in the order
 * that never leaves a record naming a missing blob: store → set the field → remove what it replaced.
 */
export class FilesService implements Omit<FilesApi, 'reconcile'> {
  readonly #deps: FilesServiceDeps

  constructor (deps: FilesServiceDeps) {
    this.#deps = deps
  }

  fields (path: string, version = 'v1'): FieldModel[] {
    return fileFields(this.#deps.services.get(path, version).model)
  }

  #target (path: string, name: string, version: string): Target {
    const service = this.#deps.services.get(path, version)
    const field = service.model.fieldsByPath.get(name)
    if (field === undefined || field.kind !== 'file') {
      throw new ValidationError(`${name} is not a file field of ${path}`, { field: name })
    }
    return { service, field, driver: this.#deps.stores.for(field) }
  }

  async upload (
    ctx: RequestContext,
    path: string,
    id: string,
    name: string,
    file: UploadSource,
    version = 'v1'
  ): Promise<FileMeta> {
    const { service, field, driver } = this.#target(path, name, version)
    let key: string | undefined
    try {
      // Every refusal (tenant, ACL, client, unknown id) comes before a byte is read or stored.
      const { userId } = await service.checkFileWrite(ctx, id, name)
      const upload = await inspectUpload(file.stream, file.mimetype, name, field.file!)
      key = newBlobKey(userId, service.model.path, name, id, upload.ext)
      await driver.put(key, upload.body, upload.contentType)
      const meta: Document = {
        key,
        size: upload.bytes(),
        contentType: upload.contentType,
        originalName: safeFileName(file.filename),
        uploadedAt: this.#deps.now(),
        ...(field.file!.visibility === 'public' ? { url: this.#deps.urls.publicUrl(key) } : {})
      }
      const { previous } = await service.setFile(ctx, id, name, meta)
      key = undefined // the record names it now
      if (previous != null && previous.key !== meta.key) await this.#removeBlob(driver, previous.key, ctx)
      return toJson<FileMeta>(meta)
    } catch (err) {
      if (!file.stream.destroyed) file.stream.destroy()
      // Stored but not recorded (the record vanished, the write failed): nothing may stay.
      if (key !== undefined) await this.#removeBlob(driver, key, ctx)
      throw err
    }
  }

  async fetch (
    ctx: RequestContext,
    path: string,
    id: string,
    name: string,
    version = 'v1'
  ): Promise<FileMeta & { url: string }> {
    const { service, field, driver } = this.#target(path, name, version)
    const stored = await service.readFile(ctx, id, name)
    if (stored == null) throw new NotFoundError(`${path} ${id} has no ${name}`, { field: name })
    const meta = toJson<FileMeta>(stored)
    if (field.file!.visibility === 'public') return { ...meta, url: this.#deps.urls.publicUrl(meta.key) }
    const url =
      (await driver.directUrl(meta.key, blobHeaders(meta), this.#deps.ttlSeconds)) ??
      this.#deps.urls.signedUrl(meta.key, this.#deps.ttlSeconds, this.#deps.now())
    return { ...meta, url }
  }

  async remove (ctx: RequestContext, path: string, id: string, name: string, version = 'v1'): Promise<void> {
    const { service, driver } = this.#target(path, name, version)
    const { previous } = await service.setFile(ctx, id, name, null)
    if (previous == null) throw new NotFoundError(`${path} ${id} has no ${name}`, { field: name })
    await this.#removeBlob(driver, previous.key, ctx)
  }

  /** A blob no record names any more; a failure leaves an orphan for the reconciler, never an error. */
  async #removeBlob (driver: StorageDriver, key: unknown, ctx: RequestContext): Promise<void> {
    if (typeof key !== 'string') return
    try {
      await driver.remove(key)
    } catch (err) {
      const log = ctx.log ?? ctx.req?.log ?? this.#deps.log
      log.warn({ err, key }, 'could not remove a blob; the reconciler will')
    }
  }
}
