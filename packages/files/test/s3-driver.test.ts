/**
 * The S3 driver's own edges: a client for AWS itself (no endpoint), option checks, and a failed
 * multipart upload that must leave neither parts, object nor spool file behind.
 */
import { randomBytes } from 'node:crypto'
import { readdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { Readable } from 'node:stream'
import t from 'tap'
import { S3Driver } from '../src/storage/s3-driver.js'
import { startS3Peer } from './fixtures/s3-peer.js'

const s3 = await startS3Peer(t) // also puts test credentials in the SDK's default chain
const key = 'u1/contacts/avatar/0123456789abcdef01234567-0123456789ab.png'
const headers = { contentType: 'image/png', contentDisposition: 'inline' }

t.test('without an endpoint the client addresses AWS: virtual-hosted, path style on request', async (t) => {
  const hosted = new URL(await new S3Driver({ bucket: 'svc-b', region: 'eu-west-1' }).directUrl(key, headers, 60))
  t.equal(hosted.host, 'svc-b.s3.eu-west-1.amazonaws.com')
  t.equal(hosted.pathname, `/${key}`)
  t.match(hosted.searchParams.get('X-Amz-Credential'), /\/eu-west-1\/s3\/aws4_request$/, 'signed for the region')
  t.equal(hosted.searchParams.get('X-Amz-Expires'), '60')
  t.equal(hosted.searchParams.get('response-content-type'), 'image/png')
  const pathStyle = new S3Driver({ bucket: 'svc-b', region: 'eu-west-1', forcePathStyle: true })
  const url = new URL(await pathStyle.directUrl(key, headers, 60))
  t.equal(url.host, 's3.eu-west-1.amazonaws.com')
  t.equal(url.pathname, `/svc-b/${key}`)
})

t.test('options out of range are refused when the driver is built', async (t) => {
  for (const queueSize of [0, 1.5, -1]) {
    t.throws(
      () => new S3Driver({ ...s3.options, queueSize }),
      /s3\.queueSize must be a whole number >= 1/,
      `queueSize ${queueSize}`
    )
  }
  for (const multipartAboveBytes of [1024, 6 * 1024 ** 3]) {
    t.throws(
      () => new S3Driver({ ...s3.options, multipartAboveBytes }),
      /s3\.multipartAboveBytes must be a whole number from 5 MiB to 5 GiB/,
      `multipartAboveBytes ${multipartAboveBytes}`
    )
  }
})

t.test('a multipart upload that fails is aborted: the error reaches the caller, nothing stays', async (t) => {
  const spools = (): number => readdirSync(tmpdir()).filter((f) => f.startsWith('svc-s3-')).length
  const before = spools()
  const driver = new S3Driver({ ...s3.options, bucket: 'no-such-bucket', multipartAboveBytes: 5 * 1024 * 1024 })
  const body = Readable.from([randomBytes(6 * 1024 * 1024)])
  await t.rejects(driver.put(key, body, 'application/octet-stream'), { name: 'NoSuchBucket' })
  t.ok(body.destroyed, 'the upload stream is released')
  t.equal(spools(), before, 'the spool file is gone')
  t.same(await s3.keys(), [], 'the real bucket was never written')
})
