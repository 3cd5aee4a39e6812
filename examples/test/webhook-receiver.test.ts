import t from 'tap'
import { createHmac } from 'node:crypto'
import type { AddressInfo } from 'node:net'
import Fastify from 'fastify'
import svcCore from '@svc/core'
import webhooks from '@svc/webhooks'
import { getTestDb, tokenUser } from '@svc/testkit'
import { fileURLToPath } from 'node:url'
import { createReceiver, verifySignature } from '../webhook-receiver.mjs'

const JWT = 'example-webhooks-secret'

t.test('the example receiver takes signed svc deliveries, once each, and refuses forgeries', async (t) => {
  const { db } = await getTestDb(t)
  const app = Fastify({ logger: false })
  await app.register(svcCore, { db, jwtSecret: JWT, schemaDir: fileURLToPath(new URL('../schema', import.meta.url)) })
  await app.register(webhooks, { allowPrivateUrls: true, pollIntervalMs: 20 })
  t.teardown(async () => await app.close())
  await app.ready()

  // Subscribe first (the secret is known only then), start the receiver with it, point the subscription at it.
  const user = tokenUser(JWT)
  const sub = await app.inject({
    method: 'POST',
    url: '/api/v1/webhooks',
    headers: user.headers,
    payload: { events: ['*'], url: 'http://127.0.0.1:9/not-yet' }
  })
  t.equal(sub.statusCode, 201, 'subscribed')
  const secret: string = sub.json().secret
  const events: Array<Record<string, any>> = []
  const server = createReceiver({ secret, onEvent: (e) => events.push(e) })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => {
    server.closeAllConnections()
    server.close()
  })
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`
  const moved = await app.inject({
    method: 'PATCH',
    url: `/api/v1/webhooks/${sub.json()._id as string}`,
    headers: user.headers,
    payload: { url }
  })
  t.equal(moved.statusCode, 200, 'pointed at the receiver')
  await app.inject({ method: 'POST', url: `/api/v1/webhooks/${sub.json()._id as string}/test`, headers: user.headers })
  for (let i = 0; i < 300 && events.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 25))
  t.match(events, [{ type: 'webhook.test', userId: user.userId }], 'the test event arrived and verified')
  const rows = await app.inject({
    method: 'GET',
    url: `/api/v1/webhooks/${sub.json()._id as string}/deliveries`,
    headers: user.headers
  })
  t.match(rows.json().results, [{ status: 'success', responseCode: 204 }], 'the receiver answered 204')

  const body = JSON.stringify({ id: 'x', type: 'todos.created' })
  const signature = `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`
  const send = async (sig: string, delivery: string): Promise<number> =>
    (
      await fetch(url, {
        method: 'POST',
        headers: { 'x-svc-signature': sig, 'x-svc-delivery': delivery, 'content-type': 'application/json' },
        body
      })
    ).status
  t.equal(await send(signature, 'd-1'), 204, 'a correctly signed request')
  t.equal(await send(signature, 'd-1'), 204, 'its repeat is answered')
  t.equal(events.filter((e) => e.id === 'x').length, 1, 'but handled once')
  t.equal(
    await send(
      signature.replace(/.$/, (c) => (c === '0' ? '1' : '0')),
      'd-2'
    ),
    401,
    'a wrong signature'
  )
  t.equal(await send('', 'd-3'), 401, 'no signature')
  t.notOk(verifySignature(secret, `${body} `, signature), 'the raw bytes are what is signed')
})
