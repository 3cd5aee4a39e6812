// The primary's and its workers' lifecycle messages, apart from worker.ts: the primary must not
// load the server's code (worker.ts imports all of it) just to name them.

/**
 * The version of what the primary and its workers say to each other: these messages and
 * shared-state.ts's calls. A rolling reload forks the workers from the code on disk, which may
 * be a newer svc than the primary's: each side checks the other's version at the hello and
 * refuses a mismatch rather than misread it. Change it with the shape of any message.
 */
export const CLUSTER_PROTOCOL = 1

/** The primary's message asking a worker to finish its requests and exit. */
export const DRAIN_MESSAGE = 'svc:drain'

/** A worker's hello once its code is loaded: it then waits for the primary's go-ahead. */
export interface LoadedMessage {
  svc: 'loaded'
  protocol: number
}

/**
 * The hello of the releases before CLUSTER_PROTOCOL (a bare string). A worker sends it after its
 * versioned hello, so a primary of such a release, which reads only this one, answers with a
 * go-ahead the worker can refuse instead of waiting for an answer that never comes.
 */
export const UNVERSIONED_HELLO = 'svc:loaded'

/** The primary's go-ahead: the database to connect to (the embedded one's port is known only now). */
export interface StartMessage {
  svc: 'start'
  mongodbUri: string
  /** Absent from the releases before CLUSTER_PROTOCOL. */
  protocol?: number
}

/** The protocol a worker's hello names: null for the unversioned hello, undefined when `message` is no hello. */
export function helloProtocol (message: unknown): number | null | undefined {
  if (message === UNVERSIONED_HELLO) return null
  const hello = message as Partial<LoadedMessage> | null
  if (typeof hello !== 'object' || hello?.svc !== 'loaded') return undefined
  return typeof hello.protocol === 'number' ? hello.protocol : null
}

/** A worker or a primary speaking another protocol than this process. */
export class ProtocolMismatchError extends Error {
  readonly theirs: number | null
  constructor (who: 'worker' | 'primary', theirs: number | null) {
    const other = theirs === null ? 'an unversioned protocol (an svc release before versioning)' : `protocol ${theirs}`
    super(
      who === 'worker'
        ? `the new worker speaks ${other}, this primary speaks protocol ${CLUSTER_PROTOCOL}: svc on disk is not the svc this primary started with; restart it (SIGTERM, then start) to upgrade`
        : `this worker speaks protocol ${CLUSTER_PROTOCOL}, its primary ${other}: svc on disk is not the svc the primary started with; restart it (SIGTERM, then start) to upgrade`
    )
    this.name = 'ProtocolMismatchError'
    this.theirs = theirs
  }
}
