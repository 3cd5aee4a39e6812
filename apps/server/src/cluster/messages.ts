// The primary's and its workers' lifecycle messages, apart from worker.ts: the primary must not
// load the server's code (worker.ts imports all of it) just to name them.

/** The primary's message asking a worker to finish its requests and exit. */
export const DRAIN_MESSAGE = 'svc:drain'

/** A worker's message once its code is loaded: it then waits for the primary's go-ahead. */
export const LOADED_MESSAGE = 'svc:loaded'

/** The primary's go-ahead: the database to connect to (the embedded one's port is known only now). */
export interface StartMessage {
  svc: 'start'
  mongodbUri: string
}
