// A receiver for svc webhooks in plain Node (no dependencies).
// WEBHOOK_SECRET=<the subscription's secret> PORT=4000 node webhook-receiver.mjs
import { createHmac, timingSafeEqual } from 'node:crypto'
import { createServer } from 'node:http'
import { pathToFileURL } from 'node:url'

/** True when `header` is `sha256=<hex HMAC-SHA256 of rawBody>` under `secret` (constant-time compare). */
export function verifySignature (secret, rawBody, header) {
  const expected = Buffer.from('sha256=' + createHmac('sha256', secret).update(rawBody).digest('hex'))
  const got = Buffer.from(String(header ?? ''))
  return got.length === expected.length && timingSafeEqual(got, expected)
}

/**
 * An HTTP server that accepts svc deliveries: the signature is checked over the raw bytes
 * (before any JSON parsing), repeats are recognised by X-svc-Delivery (delivery is at least once),
 * and the answer is 2xx as soon as the event is taken — slow work belongs after the response.
 */
export function createReceiver ({ secret, onEvent, seen = new Set() }) {
  return createServer((req, res) => {
    const chunks = []
    req.on('data', (c) => chunks.push(c))
    req.on('end', () => {
      const raw = Buffer.concat(chunks)
      if (req.method !== 'POST' || !verifySignature(secret, raw, req.headers['x-svc-signature'])) {
        res.writeHead(401).end()
        return
      }
      const deliveryId = String(req.headers['x-svc-delivery'])
      if (!seen.has(deliveryId)) {
        seen.add(deliveryId)
        onEvent(JSON.parse(raw.toString('utf8')), { deliveryId, type: req.headers['x-svc-event'] })
      }
      res.writeHead(204).end()
    })
  })
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const secret = process.env.WEBHOOK_SECRET
  if (!secret) throw new Error('set WEBHOOK_SECRET to the secret POST /api/v1/webhooks returned')
  createReceiver({ secret, onEvent: (event) => console.log(JSON.stringify(event)) }).listen(
    Number(process.env.PORT ?? 4000),
    () => console.log(`listening on ${process.env.PORT ?? 4000}`)
  )
}
