import { EventEmitter } from 'node:events'
import type { FastifyBaseLogger } from 'fastify'

/** In-process record event: `<path>.created|updated|deleted` (and `.transitioned` later). */
export interface RecordEvent {
  type: string
  version: string
  path: string
  /** Tenant of the write (null only for system writes without an identity). */
  userId: string | null
  recordId?: string
  /** The record after the write (for deletes: as it was removed or tombstoned). */
  record?: Record<string, unknown>
  /** The record before an update or delete. */
  before?: Record<string, unknown>
  /** Bulk writes: the caller's filter and how many records it touched. */
  filter?: Record<string, unknown>
  numAffected?: number
  /** `<path>.transitioned`: the state field and its move. */
  field?: string
  from?: string | null
  to?: string
}

/**
 * An EventEmitter whose listeners cannot fail the emitter's caller: a throw or a rejected
 * promise from one subscriber is logged and the next subscriber still runs.
 */
export class RecordEvents extends EventEmitter {
  #log: FastifyBaseLogger | undefined

  constructor (log?: FastifyBaseLogger) {
    super()
    this.#log = log
  }

  override emit (name: string | symbol, ...args: unknown[]): boolean {
    const listeners = this.rawListeners(name)
    for (const listener of listeners) {
      try {
        const ret = (listener as (...a: unknown[]) => unknown).apply(this, args)
        if (ret != null && typeof (ret as Promise<unknown>).then === 'function') {
          ;(ret as Promise<unknown>).then(undefined, (err: unknown) => this.#report(name, err))
        }
      } catch (err) {
        this.#report(name, err)
      }
    }
    return listeners.length > 0
  }

  #report (name: string | symbol, err: unknown): void {
    this.#log?.error({ err, event: String(name) }, 'record event subscriber failed')
  }
}
