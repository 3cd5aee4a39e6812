import t from 'tap'
import { latencyUnderAttack } from '@svc/testkit'
import { bearer, buildApp, testDb } from './helper.js'

// Issue 21: budgets count what the router matched (a percent-encoded path is the same route),
// per IP and per tenant (a tenant's budget follows it across IPs), and the auth routes also per
// e-mail address.

const ALICE = '65f0000000000000000000a1'

t.test('percent-encoded paths count against the API budget; another client is served meanwhile', async (t) => {
  const app = await buildApp(t, await testDb(t), { rateLimit: { apiPerMin: 30 } })
  const attackerIp = '10.9.0.1'
  const urls = ['/%61pi/v1/notes', '/api/v1/%6eotes', '/%61pi/v1/nothing', '/%67raphql', '/%6dcp', '/%2561pi/v1/notes']
  const codes: Record<string, number[]> = {}
  let i = 0
  const attack = async (): Promise<number> => {
    const url = urls[i++ % urls.length]
    const status = (await app.inject({ method: 'GET', url, headers: bearer(ALICE), remoteAddress: attackerIp }))
      .statusCode
    ;(codes[url] ??= []).push(status)
    return status
  }
  const victim = async (): Promise<void> => {
    const res = await app.inject({
      method: 'GET',
      url: '/api/v1/notes',
      headers: bearer('65f0000000000000000000b2'),
      remoteAddress: '10.9.0.2'
    })
    if (res.statusCode !== 200) throw new Error(`the victim got ${res.statusCode}`)
  }
  const { victimMs, attacks } = await latencyUnderAttack(attack, victim, { concurrency: 60 })
  t.ok(victimMs < 2000, `the other client waited ${Math.round(victimMs)} ms at most`)
  t.equal(
    attacks.filter((s) => s !== 429).length,
    30 + 10,
    "30 API requests, plus the 10 that are no API URL even decoded (/%2561pi is '/%61pi')"
  )
  t.same([...new Set(codes['/%2561pi/v1/notes'])], [404], 'a doubly encoded path matches no route and is not the API')
  for (const url of ['/%61pi/v1/notes', '/api/v1/%6eotes', '/%61pi/v1/nothing', '/%67raphql', '/%6dcp']) {
    t.ok(codes[url].includes(429), `${url} is counted`)
  }
  t.equal(
    (await app.inject({ method: 'GET', url: '/api/v1/notes', headers: bearer(ALICE), remoteAddress: attackerIp }))
      .statusCode,
    429,
    'the plain spelling shares the spent budget'
  )
})

t.test("a tenant's API budget follows it across IPs", async (t) => {
  const app = await buildApp(t, await testDb(t), { rateLimit: { apiPerMin: 6 } })
  const codes = []
  for (let i = 0; i < 8; i++) {
    codes.push(
      (await app.inject({ method: 'GET', url: '/api/v1/notes', headers: bearer(ALICE), remoteAddress: `10.8.0.${i}` }))
        .statusCode
    )
  }
  t.same(codes, [200, 200, 200, 200, 200, 200, 429, 429], 'six in the minute from eight addresses')
  const res = await app.inject({
    method: 'GET',
    url: '/api/v1/notes',
    headers: bearer(ALICE),
    remoteAddress: '10.8.1.1'
  })
  t.equal(res.json().error.code, 'RATE_LIMITED')
  t.ok(Number(res.headers['retry-after']) > 0, 'Retry-After')
  t.equal(
    (
      await app.inject({
        method: 'GET',
        url: '/api/v1/notes',
        headers: bearer('65f0000000000000000000b2'),
        remoteAddress: '10.8.1.1'
      })
    ).statusCode,
    200,
    'another tenant on the same address is served'
  )
})

t.test('auth routes are limited per e-mail address, whatever the IP', async (t) => {
  const app = await buildApp(t, await testDb(t), { rateLimit: { authPerMin: 100, authPerEmailPerMin: 3 } })
  const login = async (email: string, ip: string): Promise<number> =>
    (
      await app.inject({
        method: 'POST',
        url: '/login',
        payload: { email, password: 'wrong password 123' },
        remoteAddress: ip
      })
    ).statusCode
  const codes = []
  for (let i = 0; i < 5; i++) codes.push(await login('Victim@Example.test', `10.7.0.${i}`))
  t.same(codes, [401, 401, 401, 429, 429], 'three wrong passwords for one address from five IPs, then 429')
  t.equal(await login('victim@example.test', '10.7.1.1'), 429, 'the same address in another case')
  t.equal(await login('someone-else@example.test', '10.7.0.1'), 401, 'another person on the same IP is not locked out')
})

t.test('forgot-password: twenty mails to one address in a second become three', async (t) => {
  const app = await buildApp(t, await testDb(t), { rateLimit: { authPerEmailPerMin: 3 } })
  const mails: unknown[] = []
  app.svc.mailer = async (m) => {
    mails.push(m)
  }
  const email = 'target@example.test'
  t.equal(
    (
      await app.inject({
        method: 'POST',
        url: '/register',
        payload: { first_name: 'T', last_name: 'T', email, password: 'long enough password' },
        remoteAddress: '10.6.0.1'
      })
    ).statusCode,
    201
  )
  const victim = async (): Promise<void> => {
    const res = await app.inject({
      method: 'GET',
      url: '/api/v1/notes',
      headers: bearer(ALICE),
      remoteAddress: '10.6.9.9'
    })
    if (res.statusCode !== 200) throw new Error(`the victim got ${res.statusCode}`)
  }
  let n = 0
  const flood = async (): Promise<number> =>
    (
      await app.inject({
        method: 'POST',
        url: '/auth/forgot-password',
        payload: { email },
        remoteAddress: `10.6.1.${n++}`
      })
    ).statusCode
  const { victimMs, attacks } = await latencyUnderAttack(flood, victim, { concurrency: 20 })
  t.ok(victimMs < 2000, `another client waited ${Math.round(victimMs)} ms at most`)
  // The register above counted once for the address too.
  t.equal(attacks.filter((s) => s === 202).length, 2, 'accepted while the address has budget')
  t.equal(attacks.filter((s) => s === 429).length, 18, 'the rest are 429')
  await new Promise((resolve) => setTimeout(resolve, 200))
  t.equal(mails.length, 2, 'two mails sent')
  const ipLimited = await buildApp(t, await testDb(t), { rateLimit: { authPerMin: 2 } })
  const perIp = []
  for (let i = 0; i < 3; i++) {
    perIp.push(
      (
        await ipLimited.inject({
          method: 'POST',
          url: '/auth/forgot-password',
          payload: { email: `x${i}@example.test` },
          remoteAddress: '10.6.2.1'
        })
      ).statusCode
    )
  }
  t.same(perIp, [202, 202, 429], 'and it shares the per-IP auth budget with /login and /register')
})
