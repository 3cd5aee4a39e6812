import type { Readable } from 'node:stream'
import type { S3Client } from '@aws-sdk/client-s3'
import type { RequestContext } from '@svc/core'
import type { FieldModel } from '@svc/core/kit'

/** The spec's stored shape of a File field, as every surface answers it (dates as ISO 8601). */
export interface FileMeta {
  /** `<userId>/<path>/<field>/<id>-<random>.<ext>`: namespaced by tenant, new for every upload. */
  key: string
  size: number
  contentType: string
  /** The client's file name, made safe (no path, no control characters, at most 255 characters). */
  originalName: string
  uploadedAt: string
  /** Public files only: their stable URL. */
  url?: string
}

/** One file to store: a stream (never buffered whole), the client's name and declared type. */
export interface UploadSource {
  stream: Readable
  filename: string
  /** The client's declared type; used only when the content's magic bytes say nothing. */
  mimetype?: string
}

/**
 * `app.svc.files`: the file operations for every surface (REST routes, MCP tools). Tenancy,
 * field ACL, size and type limits, audit rows and events all hold behind it.
 */
export interface FilesApi {
  /** The file fields of a schema (FieldModel with kind 'file'). */
  fields(path: string, version?: string): FieldModel[]
  /** Streams one file into storage and sets the field; returns FileMeta (spec shape). */
  upload(
    ctx: RequestContext,
    path: string,
    id: string,
    field: string,
    file: UploadSource,
    version?: string
  ): Promise<FileMeta>
  /** FileMeta plus `url` (private: signed, ~300 s; public: stable). 404 when the field is empty. */
  fetch(
    ctx: RequestContext,
    path: string,
    id: string,
    field: string,
    version?: string
  ): Promise<FileMeta & { url: string }>
  /** Removes the blob and clears the field. 404 when the field is empty. */
  remove(ctx: RequestContext, path: string, id: string, field: string, version?: string): Promise<void>
  /** One pass of the orphan reconciler (see `orphanGraceMs`); answers how many blobs it removed. */
  reconcile(): Promise<{ removed: number }>
}

/** S3 (or an S3-compatible server) for fields with `storage: 's3'`. Credentials: the SDK's default chain. */
export interface S3StorageOptions {
  bucket: string
  region: string
  /** An S3-compatible endpoint (MinIO, a local test server); implies path-style addressing. */
  endpoint?: string
  /** Default: true when `endpoint` is set. */
  forcePathStyle?: boolean
  /** Parts (5 MiB each) of one blob over 5 GiB (multipart) sent at once; default 1. Each adds a part buffer in memory. */
  queueSize?: number
  /** Blobs larger than this go as a multipart upload instead of one PutObject; default and most 5 GiB (S3's PutObject limit), at least 5 MiB. */
  multipartAboveBytes?: number
  /** A ready client instead of the options above (its region/endpoint/credentials are used). */
  client?: S3Client
}

/** Options of the @svc/files plugin. */
export interface FilesOptions {
  /** Local storage root, created at start; default `UPLOADS_DIR` or `./uploads`. */
  uploadsDir?: string
  /** Base of file URLs (`https://api.example.com`); default core's `publicBaseUrl`. Required by one of the two. */
  publicBaseUrl?: string
  /** HMAC key of signed download URLs; default derived from the JWT secret (never the same bytes). */
  signingSecret?: string | Buffer
  /** Lifetime of a private file's URL; default 300 (spec: about 5 minutes). */
  signedUrlTtlSeconds?: number
  /** Required when a schema has a field with `storage: 's3'`. */
  s3?: S3StorageOptions
  /** A blob no record names is removed once older than this; default 1 hour. */
  orphanGraceMs?: number
  /** How often each process runs the orphan reconciler; default 1 hour, `0` disables the timer. */
  reconcileIntervalMs?: number
  /** The clock (tests inject one); default `() => new Date()`. */
  now?: () => Date
}

declare module '@svc/core' {
  interface SvcContext {
    /** Present when @svc/files is registered. */
    files?: FilesApi
  }
}
