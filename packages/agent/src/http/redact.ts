/**
 * A URL as a log may show it: link codes (`/link/<nonce>`) and the whole query (a refresh token
 * sent to `/oauth/callback` as a value, or as a bare key) are replaced.
 */
export function redactUrl (url: string): string {
  const q = url.indexOf('?')
  const path = (q < 0 ? url : url.slice(0, q)).replace(/\/link\/[^/]+/, '/link/[redacted]')
  return q < 0 || q === url.length - 1 ? path : `${path}?[redacted]`
}
