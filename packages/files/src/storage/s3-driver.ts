import type { Readable } from 'node:stream'
import { DeleteObjectCommand, GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3'
import { Upload } from '@aws-sdk/lib-storage'
import { getSignedUrl } from '@aws-sdk/s3-request-presigner'
import type { S3StorageOptions } from '../types.js'
import type { BlobHeaders, BlobInfo, StorageDriver } from './driver.js'
import { KEY_RE } from './keys.js'

// S3's minimum part size. lib-storage must buffer a part to know its length, and keeps the
// previous part's buffer until it cuts the next: about two parts (10 MiB) per active upload.
const PART_SIZE = 5 * 1024 * 1024

/** Builds the client from options: the SDK's default credential chain, path style for custom endpoints. */
export function s3Client (opts: S3StorageOptions): S3Client {
  if (opts.client !== undefined) return opts.client
  if (opts.endpoint === undefined) return new S3Client({ region: opts.region, ...(opts.forcePathStyle !== undefined ? { forcePathStyle: opts.forcePathStyle } : {}) })
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
 * Blobs as objects of one bucket. Uploads are streamed as a multipart upload (lib-storage): a
 * failed or refused upload is aborted (no parts left) and the key deleted, so nothing stays.
 * Downloads are presigned GETs that carry the stored type and a safe Content-Disposition.
 */
export class S3Driver implements StorageDriver {
  readonly name = 's3'
  readonly #client: S3Client
  readonly #bucket: string
  readonly #queueSize: number

  constructor (opts: S3StorageOptions) {
    this.#client = s3Client(opts)
    this.#bucket = opts.bucket
    this.#queueSize = opts.queueSize ?? 1
    if (!Number.isSafeInteger(this.#queueSize) || this.#queueSize < 1) throw new Error('@svc/files: s3.queueSize must be a whole number >= 1')
  }

  #check (key: string): string {
    if (!KEY_RE.test(key)) throw new Error(`@svc/files: unsafe key '${key}'`)
    return key
  }

  async put (key: string, body: Readable, contentType: string): Promise<void> {
    const upload = new Upload({
      client: this.#client,
      params: { Bucket: this.#bucket, Key: this.#check(key), Body: body, ContentType: contentType },
      partSize: PART_SIZE,
      queueSize: this.#queueSize,
      leavePartsOnError: false
    })
    try {
      await upload.done()
    } catch (err) {
      body.destroy()
      await upload.abort().catch(() => {})
      // A single-part upload may have landed before the failure was seen: make sure it is gone.
      await this.remove(key).catch(() => {})
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
        if (o.Key !== undefined && o.LastModified !== undefined && o.LastModified < before) yield { key: o.Key, modifiedAt: o.LastModified }
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
