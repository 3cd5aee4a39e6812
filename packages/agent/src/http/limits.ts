import { RateLimitedError } from '../errors.js'
import type { Limiter } from '../store/types.js'

/** Counts one hit; over the limit, RATE_LIMITED saying when to come back. */
export async function limited (limiter: Limiter, key: string, message: string): Promise<void> {
  const waitMs = await limiter.hit(key)
  if (waitMs != null) {
    throw new RateLimitedError(`${message}, try again in ${Math.ceil(waitMs / 1000)} s`, {
      retryAfterSeconds: Math.ceil(waitMs / 1000)
    })
  }
}
