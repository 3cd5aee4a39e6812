// What the latency benchmarks share: bench users (one tenant each) and creates sent at a steady
// rate, each note's text naming it so that a stream's reader can find when it was sent.
import { signToken } from '@svc/testkit'
import { BENCH_SECRET } from './settings.js'

export type BenchUser = Record<string, string>

/** `count` users of their own tenant, ids from `idBase` (keep benches apart with different bases). */
export function benchUsers (count: number, idBase: number, prefix: string): BenchUser[] {
  return Array.from({ length: count }, (_, i) => {
    const userId = (idBase + i).toString(16).padStart(24, '0')
    const token = signToken({ user_id: userId, email: `${prefix}${i}@example.test`, roles: ['user'] }, BENCH_SECRET, {
      expiresIn: 3600
    })
    return { authorization: `Bearer ${token}` }
  })
}

export interface Paced {
  /** create answer times (ms) of the 201s */
  answers: number[]
  failed: number
  /** how long sending took (s) */
  seconds: number
}

/**
 * Sends `rate` creates a second for `seconds` s to `serverUrl`, round-robin over `users`, in ticks
 * of 50 ms, noting in `sentAt` when each note's text was sent; resolves once the last is sent
 * (answers keep arriving into the returned object).
 */
export async function paceCreates (
  serverUrl: string,
  users: BenchUser[],
  rate: number,
  seconds: number,
  prefix: string,
  sentAt: Map<string, number>
): Promise<Paced> {
  const paced: Paced = { answers: [], failed: 0, seconds: 0 }
  const total = rate * seconds
  const tickMs = 50
  let sent = 0
  const started = performance.now()
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      for (let k = 0; k < (rate * tickMs) / 1000 && sent < total; k++) {
        const n = sent++
        const text = `${prefix}${n}`
        const t0 = performance.now()
        sentAt.set(text, t0)
        fetch(`${serverUrl}/api/v1/notes`, {
          method: 'POST',
          headers: { ...users[n % users.length], 'content-type': 'application/json' },
          body: JSON.stringify({ text })
        })
          .then(async (res) => {
            await res.arrayBuffer()
            if (res.status === 201) paced.answers.push(performance.now() - t0)
            else paced.failed++
          })
          .catch(() => {
            paced.failed++
          })
      }
      if (sent >= total) {
        clearInterval(timer)
        resolve()
      }
    }, tickMs)
  })
  paced.seconds = (performance.now() - started) / 1000
  return paced
}

/** Waits until `done()` or 10 s, whichever comes first (late deliveries are counted as missing). */
export async function settle (done: () => boolean): Promise<void> {
  const until = performance.now() + 10_000
  while (!done() && performance.now() < until) await new Promise((resolve) => setTimeout(resolve, 100))
}
