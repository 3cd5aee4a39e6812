import { readFileSync } from 'node:fs'
import { join } from 'node:path'

/**
 * The page's policy: scripts and styles only from the console's own files (no inline code, no
 * eval: charts run Vega's CSP interpreter), API calls to this origin. Images may come from
 * anywhere the files plugin signs links to (public URLs, presigned S3 URLs), never scripts.
 */
export const PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob: https: http:",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'self'",
  "manifest-src 'self'"
].join('; ')

/** HTML-escapes an attribute value (the prefix is the operator's option, not a visitor's input). */
function attr (value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;')
}

/**
 * The built `index.html` with `<base href="<prefix>/">`: Vite emits relative asset URLs, so one
 * build serves under any prefix, and the app reads its route base from `document.baseURI`.
 */
export function renderIndex (appDir: string, prefix: string): Buffer {
  const html = readFileSync(join(appDir, 'index.html'), 'utf8')
  if (!html.includes('<head>')) throw new Error(`@svc/console: ${join(appDir, 'index.html')} has no <head>`)
  return Buffer.from(html.replace('<head>', `<head>\n    <base href="${attr(prefix)}/">`))
}
