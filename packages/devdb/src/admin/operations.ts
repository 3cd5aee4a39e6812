/**
 * The connections and the operations in flight, as mongod's CurOp registry knows them: what
 * `currentOp` lists and what `killOp` interrupts. An operation is interruptible where it waits
 * (a `failCommand` block); the engine itself runs a command to completion (README "Concurrency").
 */
import { Long, type Document } from 'bson'
import type { CommandError } from '../errors.js'
import { adminError } from './error-codes.js'

export interface ClientInfo {
  connectionId: number
  /** the peer's address, `ip:port` */
  remote: string
  /** the handshake's `client` document (driver, os, application) */
  metadata?: Document
  appName?: string
}

export interface Operation {
  opid: number
  client: ClientInfo
  db: string
  name: string
  command: Document
  /** for secs_running/microsecs_running */
  started: bigint
  killed: boolean
  readonly abort: AbortController
}

/** mongod's logical op type of a command (currentOp's `op`). */
const OP_TYPES: Record<string, string> = {
  find: 'query',
  getMore: 'getmore',
  insert: 'insert',
  update: 'update',
  delete: 'remove'
}

export class Operations {
  readonly clients = new Map<number, ClientInfo>()
  private readonly inflight = new Map<number, Operation>()
  private nextOpId = 1

  connect (connectionId: number, remote: string): ClientInfo {
    const client = { connectionId, remote }
    this.clients.set(connectionId, client)
    return client
  }

  disconnect (connectionId: number): void {
    this.clients.delete(connectionId)
  }

  begin (client: ClientInfo, db: string, name: string, command: Document): Operation {
    const op: Operation = {
      opid: this.nextOpId++,
      client,
      db,
      name,
      command,
      started: process.hrtime.bigint(),
      killed: false,
      abort: new AbortController()
    }
    this.inflight.set(op.opid, op)
    return op
  }

  end (op: Operation): void {
    this.inflight.delete(op.opid)
  }

  /** Marks an operation killed and wakes it where it waits; false when no such operation runs. */
  kill (opid: number): boolean {
    const op = this.inflight.get(opid)
    if (op === undefined) return false
    op.killed = true
    op.abort.abort()
    return true
  }

  list (): Operation[] {
    return [...this.inflight.values()]
  }

  /** Connections with no operation in flight (currentOp's idle connections). */
  idleClients (): ClientInfo[] {
    const busy = new Set([...this.inflight.values()].map((op) => op.client.connectionId))
    return [...this.clients.values()].filter((c) => !busy.has(c.connectionId))
  }
}

export function interrupted (): CommandError {
  return adminError(11601, 'operation was interrupted')
}

/** Waits `ms`, or throws mongod's Interrupted as soon as the operation is killed. */
export async function interruptibleSleep (op: Operation, ms: number): Promise<void> {
  if (op.killed) throw interrupted()
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      op.abort.signal.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    const onAbort = (): void => {
      clearTimeout(timer)
      reject(interrupted())
    }
    op.abort.signal.addEventListener('abort', onAbort, { once: true })
  })
}

export function opType (name: string): string {
  return OP_TYPES[name] ?? 'command'
}

/** The namespace an operation works on, as currentOp shows it. */
export function opNamespace (op: Pick<Operation, 'db' | 'name' | 'command'>): string {
  const target: unknown = op.command[op.name]
  if (op.name === 'getMore') return `${op.db}.${String(op.command.collection)}`
  if (typeof target === 'string' && target.length > 0) return `${op.db}.${target}`
  return op.name === 'aggregate' ? `${op.db}.$cmd.aggregate` : `${op.db}.$cmd`
}

export function elapsedMicros (op: Operation): Long {
  return Long.fromBigInt((process.hrtime.bigint() - op.started) / 1000n)
}
