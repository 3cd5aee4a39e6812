import { randomBytes } from 'node:crypto'
import { createReadStream, createWriteStream } from 'node:fs'
import { rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import {
  DeleteObjectCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client
} from '@aws-sdk/client-s3'
import { Upload } from '@aws-sdk/lib-storage'
import { getSignedUrl } from '@aws-sdk/s3-request-presigner'
import type { S3StorageOptions } from '../types.js'
import type { BlobHeaders, BlobInfo, StorageDriver } from './driver.js'
import { KEY_RE } from './keys.js'

// S3's minimum part size. lib-storage must buffer a part to know its length, and keeps the
// previous part's buffer until it cuts the next: about two parts (10 MiB) per active upload.
const PART_SIZE = 5 * 1024 * 1024
// A single PutObject takes up to 5 GiB; only larger blobs need a (buffering) multipart upload.
const MAX_PUT_OBJECT = 5 * 1024 * 1024 * 1024

/** Builds the client from options: the SDK's default credential chain, path style for custom endpoints. */
export function s3Client (opts: S3StorageOptions): S3Client {
  if (opts.client !== undefined) return opts.client
  if (opts.endpoint === undefined) {
    return new S3Client({
      region: opts.region,
      ...(opts.forcePathStyle !== undefined ? { forcePathStyle: opts.forcePathStyle } : {})
    })
  }
  return new S3Client({
    region: opts.region,
    endpoint: opts.endpoint,
    forcePathStyle: opts.forcePathStyle ?? true,
    // S3-compatible servers do not all understand the SDK's default CRC checksum headers and
    // trailers; against them, checksums only where the API requires one.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED'
  })
}

/**
 * Blobs as objects of one bucket. Uploads are spooled to a temp file and sent as one PutObject
 * (multipart only past 5 GiB): a failed or refused upload leaves neither the object nor the file.
 * Downloads are presigned GETs that carry the stored type and a safe Content-Disposition.
 */
export class S3Driver implements StorageDriver {
  readonly name = 's3'
  readonly #client: S3Client
  readonly #bucket: string
  readonly #queueSize: number
  readonly #multipartAbove: number

  constructor (opts: S3StorageOptions) {
    this.#client = s3Client(opts)
    this.#bucket = opts.bucket
    this.#queueSize = opts.queueSize ?? 1
    if (!Number.isSafeInteger(this.#queueSize) || this.#queueSize < 1) {
      throw new Error('@svc/files: s3.queueSize must be a whole number >= 1')
    }
    this.#multipartAbove = opts.multipartAboveBytes ?? MAX_PUT_OBJECT
    if (
      !Number.isSafeInteger(this.#multipartAbove) ||
      this.#multipartAbove < PART_SIZE ||
      this.#multipartAbove > MAX_PUT_OBJECT
    ) {
      throw new Error('@svc/files: s3.multipartAboveBytes must be a whole number from 5 MiB to 5 GiB')
    }
  }

  #check (key: string): string {
    if (!KEY_RE.test(key)) throw new Error(`@svc/files: unsafe key '${key}'`)
    return key
  }

  /**
   * The upload is spooled to a temp file first, then sent as one PutObject of known length read
   * from that file: memory stays at a few stream buffers per upload, however many run at once
   * (lib-storage would hold about two 5 MiB parts each). Only blobs over 5 GiB go multipart.
   */
  async put (key: string, body: Readable, contentType: string): Promise<void> {
    const Key = this.#check(key)
    const spool = join(tmpdir(), `svc-s3-${randomBytes(8).toString('hex')}`)
    try {
      await pipeline(body, createWriteStream(spool, { mode: 0o600 }))
      const { size } = await stat(spool)
      if (size <= this.#multipartAbove) {
        await this.#client.send(
          new PutObjectCommand({
            Bucket: this.#bucket,
            Key,
            Body: createReadStream(spool),
            ContentLength: size,
            ContentType: contentType
          })
        )
      } else {
        await this.#multipart(Key, createReadStream(spool), contentType)
      }
    } catch (err) {
      body.destroy()
      // A PUT may have landed before the failure was seen: make sure it is gone.
      await this.remove(key).catch(() => {})
      throw err
    } finally {
      await rm(spool, { force: true })
    }
  }

  async #multipart (Key: string, body: Readable, contentType: string): Promise<void> {
    const upload = new Upload({
      client: this.#client,
      params: { Bucket: this.#bucket, Key, Body: body, ContentType: contentType },
      partSize: PART_SIZE,
      queueSize: this.#queueSize,
      leavePartsOnError: false
    })
    try {
      await upload.done()
    } catch (err) {
      await upload.abort().catch(() => {})
      throw err
    }
  }

  async remove (key: string): Promise<void> {
    await this.#client.send(new DeleteObjectCommand({ Bucket: this.#bucket, Key: this.#check(key) }))
  }

  async * list (before: Date): AsyncIterable<BlobInfo> {
    let token: string | undefined
    do {
      const page = await this.#client.send(new ListObjectsV2Command({ Bucket: this.#bucket, ContinuationToken: token }))
      for (const o of page.Contents ?? []) {
        if (o.Key !== undefined && o.LastModified !== undefined && o.LastModified < before) {
          yield { key: o.Key, modifiedAt: o.LastModified }
        }
      }
      token = page.IsTruncated === true ? page.NextContinuationToken : undefined
    } while (token !== undefined)
  }

  /** Aborted uploads are aborted by `put`; a crash mid-upload needs the bucket's AbortIncompleteMultipartUpload rule. */
  async cleanIncomplete (): Promise<number> {
    return 0
  }

  async directUrl (key: string, headers: BlobHeaders, ttlSeconds: number): Promise<string> {
    const command = new GetObjectCommand({
      Bucket: this.#bucket,
      Key: this.#check(key),
      ResponseContentType: headers.contentType,
      ResponseContentDisposition: headers.contentDisposition
    })
    return await getSignedUrl(this.#client, command, { expiresIn: ttlSeconds })
  }
}
