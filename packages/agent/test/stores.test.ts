import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import t, { type Test } from 'tap'
import { redisAnswers, TEST_REDIS_URL } from '@svc/testkit'
import { openStore, type AgentStore } from '../src/index.js'
import { MAX_LINK_ATTEMPTS, MAX_PENDING_PER_ISSUER } from '../src/store/local-state.js'

// One contract for every STORE_URL: what a single-process store does in memory, Redis does for
// several processes (two store instances here stand for two agent processes).

const redisUp = await redisAnswers()
if (!redisUp) {
  process.stderr.write(`\n!!! @svc/agent Redis store tests SKIPPED: no Redis answers at ${TEST_REDIS_URL} !!!\n\n`)
}
const dir = mkdtempSync(join(tmpdir(), 'svc-agent-stores-'))
t.teardown(() => rmSync(dir, { recursive: true, force: true }))

const kinds: Array<{ name: string; url: () => string; shared: boolean }> = [
  { name: 'memory:', url: () => 'memory:', shared: false },
  { name: 'file:', url: () => `file:${join(dir, `${randomBytes(4).toString('hex')}.json`)}`, shared: false },
  {
    name: 'redis:',
    url: () => `${TEST_REDIS_URL}/0?keyPrefix=svc-agent-test-${randomBytes(4).toString('hex')}:`,
    shared: true
  }
]

async function opened (t: Test, url: string): Promise<AgentStore> {
  const store = await openStore(url)
  t.teardown(async () => await store.close())
  return store
}

for (const kind of kinds) {
  t.test(
    kind.name,
    { skip: kind.name === 'redis:' && !redisUp ? `no Redis at ${TEST_REDIS_URL}` : false },
    async (t) => {
      const url = kind.url()
      const store = await opened(t, url)
      // A second process on the same store, where the store allows one.
      const other = kind.shared ? await opened(t, url) : store

      t.test('links', async (t) => {
        t.equal(await store.get('k:http:1'), null)
        const link = {
          refreshToken: 'r1',
          userId: 'u1',
          linkedAt: '2026-01-01T00:00:00.000Z',
          accessToken: 'a1',
          renewAt: 123
        }
        await store.set('k:http:1', link)
        t.same(await other.get('k:http:1'), link)
        await other.delete('k:http:1')
        t.equal(await store.get('k:http:1'), null)
        await store.delete('k:http:never')
      })

      t.test('link codes: one per chat user, bounded per issuer, burned by failures, consumed once', async (t) => {
        const issuer = `203.0.113.${Math.floor(Math.random() * 200)}`
        const a = (await store.pending.issue(
          { key: 'k:http:a', channel: 'http', channelUserId: 'a' },
          issuer,
          60_000
        )) as string
        t.match(a, /^[A-Za-z0-9_-]{32}$/)
        t.equal(
          await other.pending.issue({ key: 'k:http:a', channel: 'http', channelUserId: 'a' }, issuer, 60_000),
          a,
          'the same chat user keeps one code'
        )
        t.same(await other.pending.peek(a), { key: 'k:http:a', channel: 'http', channelUserId: 'a', attempts: 0 })
        for (let i = 1; i < MAX_LINK_ATTEMPTS; i++) t.equal(await other.pending.fail(a), false)
        t.equal((await store.pending.peek(a))?.attempts, MAX_LINK_ATTEMPTS - 1)
        t.equal(await store.pending.fail(a), true, 'the last allowed failure burns it')
        t.equal(await store.pending.peek(a), null)
        t.equal(await store.pending.fail(a), true, 'a gone code is burned')

        const b = (await store.pending.issue(
          { key: 'k:http:b', channel: 'http', channelUserId: 'b' },
          issuer,
          60_000
        )) as string
        const both = await Promise.all([store.pending.consume(b), other.pending.consume(b)])
        t.same(both.sort(), [false, true], 'two racing sign-ins: exactly one consumes the code')
        t.equal(await store.pending.peek(b), null)

        const quota = `198.51.100.${Math.floor(Math.random() * 200)}`
        const codes = []
        for (let i = 0; i < MAX_PENDING_PER_ISSUER + 2; i++) {
          codes.push(
            await (i % 2 === 0 ? store : other).pending.issue(
              { key: `k:http:q${i}`, channel: 'http', channelUserId: `q${i}` },
              quota,
              60_000
            )
          )
        }
        t.equal(codes.filter((c) => c != null).length, MAX_PENDING_PER_ISSUER, 'an issuer holds at most its quota')
        t.ok(
          await store.pending.issue({ key: 'k:http:c', channel: 'http', channelUserId: 'c' }, `${quota}-other`, 60_000),
          'another issuer is not affected'
        )

        const short = (await store.pending.issue(
          { key: 'k:http:d', channel: 'http', channelUserId: 'd' },
          issuer,
          50
        )) as string
        await sleep(120)
        t.equal(await other.pending.peek(short), null, 'codes expire')
        t.not(
          await store.pending.issue({ key: 'k:http:d', channel: 'http', channelUserId: 'd' }, issuer, 60_000),
          short,
          'an expired code is replaced'
        )
      })

      t.test('exclusive: one holder at a time per key', async (t) => {
        const order: string[] = []
        const hold = async (s: AgentStore, name: string): Promise<string> =>
          await s.exclusive('k:http:x', async () => {
            order.push(`${name}+`)
            await sleep(40)
            order.push(`${name}-`)
            return name
          })
        const results = await Promise.all([hold(store, 'one'), hold(other, 'two'), hold(store, 'three')])
        t.same(results, ['one', 'two', 'three'])
        for (let i = 0; i < order.length; i += 2) {
          t.equal(order[i].slice(0, -1), order[i + 1].slice(0, -1), `no overlap: ${order.join(' ')}`)
        }
        await t.rejects(
          store.exclusive('k:http:y', async () => {
            throw new Error('inside')
          }),
          /inside/
        )
        t.equal(await store.exclusive('k:http:y', async () => 'released after a failure'), 'released after a failure')
      })

      t.test('limiters count per key in a window, across processes', async (t) => {
        const name = `test-${randomBytes(3).toString('hex')}`
        const a = store.limiter(name, 3, 60)
        const b = other.limiter(name, 3, 60)
        const hits = [await a.hit('ip1'), await b.hit('ip1'), await a.hit('ip1'), await b.hit('ip1')]
        t.same(hits.slice(0, 3), [null, null, null])
        t.ok((hits[3] as number) > 0 && (hits[3] as number) <= 60_000, `then a wait (${String(hits[3])} ms)`)
        t.equal(await a.hit('ip2'), null, 'per key')
      })
    }
  )
}

t.test('a Redis that does not answer stops the start with one line', async (t) => {
  await t.rejects(openStore('redis://127.0.0.1:1'), /the store 127\.0\.0\.1:1 \(Redis\) does not answer/)
})
