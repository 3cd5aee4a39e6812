import { randomBytes } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import { Redis } from 'ioredis'
import { RateLimiterRedis } from 'rate-limiter-flexible'
import { consume, MAX_LINK_ATTEMPTS, MAX_PENDING_PER_ISSUER, newNonce } from './local-state.js'
import type { AgentStore, Limiter, Link, PendingLink, PendingLinks } from './types.js'

const PREFIX = 'svc-agent:'
/** A lock outlives any holder's work (a refresh round trip is bounded by 10 s). */
const LOCK_MS = 15_000

type Scripted = Redis & {
  countIssue: (key: string, ttlMs: number) => Promise<number>
  failCode: (key: string, max: number) => Promise<number>
  releaseLock: (key: string, token: string) => Promise<number>
}

const SCRIPTS = {
  // Codes issued per issuer within one code lifetime.
  countIssue:
    'local n = redis.call("INCR", KEYS[1]) if n == 1 then redis.call("PEXPIRE", KEYS[1], ARGV[1]) end return n',
  failCode:
    'if redis.call("EXISTS", KEYS[1]) == 0 then return 1 end ' +
    'if redis.call("HINCRBY", KEYS[1], "attempts", 1) >= tonumber(ARGV[1]) then redis.call("DEL", KEYS[1]) return 1 end return 0',
  releaseLock: 'if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) end return 0'
}

class RedisPendingLinks implements PendingLinks {
  constructor (private readonly redis: Scripted) {}

  async issue (link: Omit<PendingLink, 'attempts'>, issuer: string, ttlMs: number): Promise<string | null> {
    const live = await this.redis.get(`${PREFIX}code-of:${link.key}`)
    if (live != null && (await this.redis.exists(`${PREFIX}code:${live}`)) === 1) return live
    if ((await this.redis.countIssue(`${PREFIX}issuer:${issuer}`, ttlMs)) > MAX_PENDING_PER_ISSUER) return null
    const nonce = newNonce()
    await this.redis
      .multi()
      .hset(`${PREFIX}code:${nonce}`, {
        key: link.key,
        channel: link.channel,
        channelUserId: link.channelUserId,
        attempts: 0
      })
      .pexpire(`${PREFIX}code:${nonce}`, ttlMs)
      .set(`${PREFIX}code-of:${link.key}`, nonce, 'PX', ttlMs)
      .exec()
    return nonce
  }

  async peek (nonce: string): Promise<PendingLink | null> {
    const h = await this.redis.hgetall(`${PREFIX}code:${nonce}`)
    if (h.key == null) return null
    return { key: h.key, channel: h.channel, channelUserId: h.channelUserId, attempts: Number(h.attempts) }
  }

  async fail (nonce: string): Promise<boolean> {
    return (await this.redis.failCode(`${PREFIX}code:${nonce}`, MAX_LINK_ATTEMPTS)) === 1
  }

  async consume (nonce: string): Promise<boolean> {
    return (await this.redis.del(`${PREFIX}code:${nonce}`)) === 1
  }
}

/**
 * `redis://…` — links, link codes, locks and rate-limit counters in Redis, so several agent
 * processes behind one address share them: a link code issued by one is signed in on another,
 * and one refresh at a time per chat user across all of them (the service revokes a refresh
 * token family on reuse).
 */
export class RedisStore implements AgentStore {
  readonly pending: PendingLinks

  private constructor (private readonly redis: Scripted) {
    this.pending = new RedisPendingLinks(redis)
  }

  static async open (url: string): Promise<RedisStore> {
    const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 2, connectTimeout: 5000 })
    for (const [name, lua] of Object.entries(SCRIPTS)) redis.defineCommand(name, { numberOfKeys: 1, lua })
    try {
      await redis.connect()
      await redis.ping()
    } catch (err) {
      redis.disconnect()
      throw new Error(`@svc/agent: the store ${new URL(url).host} (Redis) does not answer: ${(err as Error).message}`, {
        cause: err
      })
    }
    return new RedisStore(redis as Scripted)
  }

  async get (key: string): Promise<Link | null> {
    const raw = await this.redis.get(`${PREFIX}link:${key}`)
    return raw == null ? null : (JSON.parse(raw) as Link)
  }

  async set (key: string, link: Link): Promise<void> {
    await this.redis.set(`${PREFIX}link:${key}`, JSON.stringify(link))
  }

  async delete (key: string): Promise<void> {
    await this.redis.del(`${PREFIX}link:${key}`)
  }

  async exclusive<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const lock = `${PREFIX}lock:${key}`
    const token = randomBytes(12).toString('hex')
    const deadline = Date.now() + LOCK_MS
    while ((await this.redis.set(lock, token, 'PX', LOCK_MS, 'NX')) !== 'OK') {
      if (Date.now() > deadline) throw new Error(`@svc/agent: ${key} stayed locked for ${LOCK_MS} ms`)
      await sleep(20 + Math.random() * 30)
    }
    try {
      return await fn()
    } finally {
      await this.redis.releaseLock(lock, token)
    }
  }

  limiter (name: string, points: number, durationSeconds: number): Limiter {
    const limiter = new RateLimiterRedis({
      storeClient: this.redis,
      keyPrefix: `${PREFIX}rate:${name}`,
      points,
      duration: durationSeconds
    })
    return { hit: async (key) => await consume(limiter, key) }
  }

  async close (): Promise<void> {
    await this.redis.quit().catch(() => {
      this.redis.disconnect()
    })
  }
}
