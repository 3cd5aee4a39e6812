import { createHmac } from 'node:crypto'

/** `X-svc-Signature` value: `sha256=` + hex HMAC-SHA256 of the exact bytes sent. */
export function sign (secret: string, rawBody: string | Buffer): string {
  return `sha256=${createHmac('sha256', secret).update(rawBody).digest('hex')}`
}
