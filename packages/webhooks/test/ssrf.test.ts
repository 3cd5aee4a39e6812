import t from 'tap'
import type { LookupAddress } from 'node:dns'
import { buildApp, eventually, makeUser, subscribe } from './helper.js'
import { startReceiver } from './fixtures/receiver.js'
import type { Lookup } from '../src/index.js'

/** A local resolver: names map to the addresses a test sets; anything else does not resolve. */
const zone = new Map<string, string[]>()
const lookup: Lookup = (hostname, _opts, cb) => {
  const list = zone.get(hostname)
  setImmediate(() => {
    if (list === undefined) cb(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), [])
    else {
      cb(
        null,
        list.map((address): LookupAddress => ({ address, family: address.includes(':') ? 6 : 4 }))
      )
    }
  })
}

const { app, db } = await buildApp(t, { webhooks: { allowPrivateUrls: false, lookup, retrySchedule: [] } })
const user = makeUser()

async function create (url: string): Promise<{ status: number; body: any }> {
  const res = await app.inject({
    method: 'POST',
    url: '/api/v1/webhooks',
    headers: user.headers,
    payload: { events: ['*'], url }
  })
  return { status: res.statusCode, body: res.json() }
}

t.test('private addresses in every textual form are refused', async (t) => {
  const forms = [
    'http://127.0.0.1/',
    'http://2130706433/',
    'http://0x7f000001/',
    'http://0177.0.0.1/',
    'http://0x7f.1/',
    'http://127.1/',
    'http://10.0.0.5/',
    'http://172.16.3.4/',
    'http://192.168.1.1/',
    'http://169.254.169.254/latest/meta-data',
    'http://100.64.0.1/',
    'http://0.0.0.0/',
    'http://224.0.0.1/',
    'http://255.255.255.255/',
    'http://[::1]/',
    'http://[::]/',
    'http://[fe80::1]/',
    'http://[fc00::1]/',
    'http://[fd12:3456::1]/',
    'http://[ff02::1]/',
    'http://[::ffff:127.0.0.1]/',
    'http://[::ffff:7f00:1]/',
    'http://[::ffff:10.0.0.1]/',
    'http://[::127.0.0.1]/',
    'http://[64:ff9b::7f00:1]/',
    'http://[2002:7f00:1::]/',
    'https://127.0.0.1:8443/x'
  ]
  for (const url of forms) {
    const res = await create(url)
    t.equal(res.status, 400, url)
    t.match(res.body.error, { code: 'VALIDATION', details: { reason: 'PRIVATE_ADDRESS', field: 'url' } }, url)
  }
  t.equal(await db.collection('webhook_subscriptions').countDocuments(), 0, 'nothing stored')
})

t.test('schemes other than http(s) are refused', async (t) => {
  for (const url of [
    'ftp://example.com/',
    'file:///etc/passwd',
    'gopher://example.com/',
    'javascript:alert(1)',
    'not a url'
  ]) {
    const res = await create(url)
    t.equal(res.status, 400, url)
    t.equal(res.body.error.details.reason, 'SCHEME', url)
  }
})

t.test('DNS names: every A/AAAA record must be public', async (t) => {
  zone.set('inside.example', ['10.1.2.3'])
  zone.set('mixed.example', ['93.184.216.34', '192.168.0.10'])
  zone.set('v6-local.example', ['2606:4700::1111', 'fd00::1'])
  zone.set('localhost.example', ['127.0.0.1'])
  zone.set('public.example', ['93.184.216.34', '2606:4700::1111'])
  for (const name of ['inside.example', 'mixed.example', 'v6-local.example', 'localhost.example']) {
    const res = await create(`https://${name}/hook`)
    t.equal(res.status, 400, name)
    t.equal(res.body.error.details.reason, 'PRIVATE_ADDRESS', name)
    // Issue 21: the refusal must not tell what an internal name resolves to.
    for (const address of zone.get(name)!) {
      t.notOk(JSON.stringify(res.body).includes(address), `${name}: the answer does not name ${address}`)
    }
  }
  {
    const res = await create('https://nowhere.example/hook')
    t.equal(res.status, 400, 'unresolvable')
    t.equal(res.body.error.details.reason, 'UNRESOLVABLE')
  }
  {
    const res = await create('https://public.example/hook')
    t.equal(res.status, 201, 'a name with only public addresses')
  }
  {
    const res = await create('http://93.184.216.34:8080/hook')
    t.equal(res.status, 201, 'a public IPv4 literal')
  }
})

t.test('PATCH re-checks the url', async (t) => {
  zone.set('ok.example', ['93.184.216.34'])
  const sub = await subscribe(app, user, 'https://ok.example/')
  const res = await app.inject({
    method: 'PATCH',
    url: `/api/v1/webhooks/${sub._id}`,
    headers: user.headers,
    payload: { url: 'http://[::ffff:127.0.0.1]/' }
  })
  t.equal(res.statusCode, 400)
  t.equal(res.json().error.details.reason, 'PRIVATE_ADDRESS')
  const stored = await db.collection('webhook_subscriptions').findOne({ _id: sub._id as any })
  t.equal(stored?.url, 'https://ok.example/', 'unchanged')
})

t.test('delivery re-checks at connect time: a name rebound to a private address is never reached', async (t) => {
  const rx = await startReceiver(t)
  const port = new URL(rx.url).port
  zone.set('rebind.example', ['93.184.216.34'])
  const sub = await subscribe(app, user, `http://rebind.example:${port}/hook`)
  zone.set('rebind.example', ['127.0.0.1'])
  await app.inject({ method: 'POST', url: `/api/v1/webhooks/${sub._id}/test`, headers: user.headers })
  const row = await eventually(
    async () => (await db.collection('webhook_deliveries').findOne({ subscriptionId: sub._id })) ?? undefined
  )
  t.match(row, { status: 'failure', responseCode: null, error: /PRIVATE_ADDRESS|non-public/ })
  t.equal(rx.received.length, 0, 'the receiver on 127.0.0.1 got nothing')
})

t.test('a literal stored before the rule (or by hand) is refused at delivery too', async (t) => {
  const rx = await startReceiver(t)
  const sub = await subscribe(app, user, 'http://93.184.216.34/')
  await db.collection('webhook_subscriptions').updateOne({ _id: sub._id as any }, { $set: { url: rx.url } })
  await app.inject({ method: 'POST', url: `/api/v1/webhooks/${sub._id}/test`, headers: user.headers })
  const row = await eventually(
    async () => (await db.collection('webhook_deliveries').findOne({ subscriptionId: sub._id })) ?? undefined
  )
  t.match(row, { status: 'failure', error: /non-public/ })
  t.equal(rx.received.length, 0)
})

t.test('relaxed (NODE_ENV=test): the connection goes to the address the guard resolved', async (t) => {
  const { app: relaxed } = await buildApp(t, { webhooks: { allowPrivateUrls: true, lookup } })
  const rx = await startReceiver(t)
  zone.set('receiver.example', ['127.0.0.1'])
  const sub = await subscribe(relaxed, user, `http://receiver.example:${new URL(rx.url).port}/hook`)
  await relaxed.inject({ method: 'POST', url: `/api/v1/webhooks/${sub._id}/test`, headers: user.headers })
  const [got] = await rx.waitFor(1)
  t.equal(got.headers.host, `receiver.example:${new URL(rx.url).port}`, 'reached through the injected resolver')
  const res = await relaxed.inject({
    method: 'POST',
    url: '/api/v1/webhooks',
    headers: user.headers,
    payload: { events: ['*'], url: 'ftp://127.0.0.1/' }
  })
  t.equal(res.json().error.details.reason, 'SCHEME', 'schemes are checked even when relaxed')
})
