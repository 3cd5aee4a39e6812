import cluster, { type Worker } from 'node:cluster'
import { type AggregationCache, type PasswordChangeBroadcast, type UsageStore } from '@svc/core'
import { memoryAggregationCache, memoryGenerations, memoryUsageStore } from '@svc/core/kit'

/**
 * Without REDIS_URL, what the workers of one cluster must agree on lives in the primary: the
 * budgets' counters (rate limits, tenants' cost budgets) and the aggregation caches'
 * generations. Workers ask over the cluster's IPC channel, one round trip per call. The primary
 * also relays completed password resets to every worker.
 */
type Call =
  | { op: 'usage'; key: string; amount: number; windowMs: number }
  | { op: 'generation'; scope: string; userId: string }
  | { op: 'invalidate'; scope: string; userId: string | null }
  | { op: 'password-changed'; userId: string }

interface Request {
  svc: 'shared-state'
  id: number
  call: Call
}
interface Reply {
  svc: 'shared-state-reply'
  id: number
  result?: unknown
  error?: string
}
interface PasswordChanged {
  svc: 'password-changed'
  id: number
  userId: string
}
interface PasswordChangedAck {
  svc: 'password-changed-ack'
  id: number
}

/** A call the primary has not answered within this long fails (the callers then fail open). */
const CALL_TIMEOUT_MS = 2000
/** How long the primary waits for a worker to confirm a relayed reset (a stuck one keeps the 10 s bound). */
const RELAY_TIMEOUT_MS = 1000

let nextRelayId = 1

/**
 * Sends the reset to `worker` and resolves once the worker confirms it has forgotten the user: a
 * message merely written could still be read after a request that arrived on another socket.
 */
async function relay (worker: Worker | undefined, userId: string): Promise<void> {
  if (worker?.isConnected() !== true) return
  const id = nextRelayId++
  await new Promise<void>((resolve) => {
    const done = (): void => {
      clearTimeout(timer)
      worker.off('message', onAck)
      resolve()
    }
    const onAck = (message: PasswordChangedAck): void => {
      if (message?.svc === 'password-changed-ack' && message.id === id) done()
    }
    const timer = setTimeout(done, RELAY_TIMEOUT_MS)
    worker.on('message', onAck)
    worker.send({ svc: 'password-changed', id, userId } satisfies PasswordChanged, (err: Error | null) => {
      if (err != null) done()
    })
  })
}

/** The primary's side: one store for all its workers. */
export function servePrimaryState (): (worker: Worker) => void {
  const usage = memoryUsageStore()
  const generations = memoryGenerations()
  const answer = async (call: Call): Promise<unknown> => {
    switch (call.op) {
      case 'usage':
        return await usage.add(call.key, call.amount, call.windowMs)
      case 'generation':
        return await generations.generation(call.scope, call.userId)
      case 'invalidate':
        return await generations.invalidate(call.scope, call.userId)
      // Confirmed by every worker before the reply, so the caller's reset answers after all forgot the user.
      case 'password-changed':
        await Promise.all(Object.values(cluster.workers ?? {}).map(async (w) => await relay(w, call.userId)))
    }
  }
  return (worker) => {
    worker.on('message', (message: Request) => {
      if (message?.svc !== 'shared-state') return
      answer(message.call)
        .then(
          (result): Reply => ({ svc: 'shared-state-reply', id: message.id, result }),
          (err: Error): Reply => ({ svc: 'shared-state-reply', id: message.id, error: err.message })
        )
        .then(
          (reply: Reply) => {
            if (worker.isConnected()) worker.send(reply)
          },
          () => {}
        )
    })
  }
}

/** A worker's side: the stores @svc/surface and @svc/core use, answered by the primary. */
export function primaryStores (): {
  usageStore: UsageStore
  aggregationCache: AggregationCache
  passwordChangeBroadcast: PasswordChangeBroadcast
} {
  let nextId = 1
  const pending = new Map<
    number,
    { resolve: (v: unknown) => void; reject: (e: Error) => void; timer: NodeJS.Timeout }
  >()
  const onPasswordChange: Array<(userId: string) => void> = []
  process.on('message', (message: Reply | PasswordChanged) => {
    if (message?.svc === 'password-changed') {
      for (const fn of onPasswordChange) fn(message.userId)
      process.send?.({ svc: 'password-changed-ack', id: message.id } satisfies PasswordChangedAck)
    }
    if (message?.svc !== 'shared-state-reply') return
    const waiter = pending.get(message.id)
    if (waiter === undefined) return
    pending.delete(message.id)
    clearTimeout(waiter.timer)
    if (message.error !== undefined) waiter.reject(new Error(message.error))
    else waiter.resolve(message.result)
  })
  const ask = async <T>(call: Call): Promise<T> =>
    await new Promise<T>((resolve, reject) => {
      const id = nextId++
      const timer = setTimeout(() => {
        pending.delete(id)
        reject(new Error(`the cluster primary did not answer ${call.op}`))
      }, CALL_TIMEOUT_MS)
      timer.unref()
      pending.set(id, { resolve: resolve as (v: unknown) => void, reject, timer })
      process.send?.({ svc: 'shared-state', id, call } satisfies Request, undefined, undefined, (err: Error | null) => {
        if (err == null) return
        pending.delete(id)
        clearTimeout(timer)
        reject(err)
      })
    })
  // The primary gone or slow: count here rather than fail the request (as the Redis store does).
  const local = memoryUsageStore()
  const answers = memoryAggregationCache()
  return {
    usageStore: {
      add: async (key, amount, windowMs) =>
        await ask<Awaited<ReturnType<UsageStore['add']>>>({ op: 'usage', key, amount, windowMs }).catch(
          async () => await local.add(key, amount, windowMs)
        )
    },
    // Answers stay in each worker; the generation in their keys is shared, so none is served after a write.
    aggregationCache: {
      get: answers.get,
      set: answers.set,
      generation: async (scope, userId) => await ask<string>({ op: 'generation', scope, userId }),
      invalidate: async (scope, userId) => {
        await ask({ op: 'invalidate', scope, userId })
      }
    },
    passwordChangeBroadcast: {
      publish: async (userId) => {
        await ask({ op: 'password-changed', userId })
      },
      subscribe: (fn) => {
        onPasswordChange.push(fn)
      }
    }
  }
}
