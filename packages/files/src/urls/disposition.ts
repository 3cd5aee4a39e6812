import contentDisposition from 'content-disposition'
import type { BlobHeaders } from '../storage/driver.js'

// Types a browser may render in place: raster images, audio, video. Everything else (HTML, SVG,
// XML, PDF, text…) is downloaded, so a tenant's upload never runs as a page of our origin.
const INLINE =
  /^(?:image\/(?:png|jpeg|gif|webp|avif|bmp)|audio\/(?:mpeg|ogg|wav|webm|flac|aac|mp4)|video\/(?:mp4|webm|ogg))$/

/** Response headers for one stored file: its stored type and an RFC 6266/5987 disposition. */
export function blobHeaders (meta: { contentType: string; originalName: string }): BlobHeaders {
  const inline = INLINE.test(meta.contentType)
  return {
    contentType: meta.contentType,
    contentDisposition: contentDisposition(meta.originalName, { type: inline ? 'inline' : 'attachment' })
  }
}
