import cluster, { type Worker } from 'node:cluster'
import { type AggregationCache, type PasswordChangeBroadcast, type UsageStore } from '@svc/core'
import { memoryAggregationCache, memoryGenerations, memoryUsageStore } from '@svc/core/kit'

/**
 * Without REDIS_URL, what the workers of one cluster must agree on lives in the primary: the
 * budgets' counters (rate limits, tenants' cost budgets) and the aggregation caches'
 * generations. Workers ask over the cluster's IPC channel; the calls of the requests a worker
 * reads in one pass of its event loop go in one message, and their answers come back in one (a
 * rate-limited request makes two calls: under load, one IPC write each way serves many requests
 * instead of two each). The primary also relays completed password resets to every worker.
 */
type Call =
  | { op: 'usage'; key: string; amount: number; windowMs: number }
  | { op: 'generation'; scope: string; userId: string }
  | { op: 'invalidate'; scope: string; userId: string | null }
  | { op: 'password-changed'; userId: string }

interface Request {
  svc: 'shared-state'
  calls: Array<{ id: number; call: Call }>
}
interface Answer {
  id: number
  result?: unknown
  error?: string
}
interface Reply {
  svc: 'shared-state-reply'
  answers: Answer[]
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
 * Collects items and hands them to `send` together once the current pass of the event loop has
 * read its I/O (setImmediate): what many requests need becomes one message.
 */
function batched<T> (send: (items: T[]) => void): (item: T) => void {
  let queue: T[] = []
  return (item) => {
    queue.push(item)
    if (queue.length > 1) return
    setImmediate(() => {
      const items = queue
      queue = []
      send(items)
    })
  }
}

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
    const reply = batched<Answer>((answers) => {
      if (worker.isConnected()) worker.send({ svc: 'shared-state-reply', answers } satisfies Reply)
    })
    worker.on('message', (message: Request) => {
      if (message?.svc !== 'shared-state') return
      for (const { id, call } of message.calls) {
        answer(call).then(
          (result) => reply({ id, result }),
          (err: Error) => reply({ id, error: err.message })
        )
      }
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
    for (const answer of message.answers) {
      const waiter = pending.get(answer.id)
      if (waiter === undefined) continue
      pending.delete(answer.id)
      clearTimeout(waiter.timer)
      if (answer.error !== undefined) waiter.reject(new Error(answer.error))
      else waiter.resolve(answer.result)
    }
  })
  const send = batched<{ id: number; call: Call }>((calls) => {
    process.send?.({ svc: 'shared-state', calls } satisfies Request, undefined, undefined, (err: Error | null) => {
      if (err == null) return
      for (const { id } of calls) {
        const waiter = pending.get(id)
        if (waiter === undefined) continue
        pending.delete(id)
        clearTimeout(waiter.timer)
        waiter.reject(err)
      }
    })
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
      send({ id, call })
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
