import closeWithGrace from 'close-with-grace'
import type { ServerConfig } from '../config.js'
import { startServer, type RunningServer } from '../start.js'
import { clusterLog } from './log.js'
import {
  CLUSTER_PROTOCOL,
  DRAIN_MESSAGE,
  ProtocolMismatchError,
  UNVERSIONED_HELLO,
  type LoadedMessage,
  type StartMessage
} from './messages.js'

/** How long a drained worker keeps its IPC channel open for connections handed over in flight. */
const HANDOFF_LINGER_MS = 500

/**
 * A cluster worker leaves when the primary asks (rolling reload, shutdown) and when the primary
 * is gone (its IPC channel closes): an orphan would keep a port nobody supervises.
 */
export function serveAsWorker (server: RunningServer): void {
  const leave = (why: string): void => {
    server.app.log.info({ why }, 'worker leaving')
    // After the server closed, stay a moment: a connection the primary handed over just before
    // is still in flight on the IPC channel; answering it "not accepted" lets the primary give it
    // to another worker, while exiting first would leave it held open and unanswered.
    server
      .close()
      .then(async () => {
        await new Promise((resolve) => setTimeout(resolve, HANDOFF_LINGER_MS))
      })
      .then(
        () => process.exit(0),
        (err: unknown) => {
          server.app.log.error({ err }, 'worker close failed')
          process.exit(1)
        }
      )
  }
  process.on('message', (message) => {
    if (message === DRAIN_MESSAGE) leave('drain')
  })
  process.on('disconnect', () => leave('primary gone'))
}

/**
 * Tells the primary this worker's code is loaded and waits for its go-ahead: the primary forks
 * every worker at once, so their slow part (loading the code) overlaps the database's start and
 * the first worker's schema checks, and lets them open the database one after the other. A
 * go-ahead of another protocol (a primary started from an older svc) is refused: exit 1.
 */
async function goAhead (): Promise<string> {
  return await new Promise((resolve) => {
    // The primary gone before its go-ahead: nothing to serve.
    const orphaned = (): never => process.exit(0)
    const onMessage = (message: StartMessage): void => {
      if (message?.svc !== 'start') return
      process.off('message', onMessage)
      process.off('disconnect', orphaned)
      if (message.protocol === CLUSTER_PROTOCOL) return resolve(message.mongodbUri)
      clusterLog(
        'error',
        {},
        `worker refused to start: ${new ProtocolMismatchError('primary', message.protocol ?? null).message}`,
        'svc-worker'
      )
      process.exit(1)
    }
    process.on('message', onMessage)
    process.once('disconnect', orphaned)
    process.send?.({ svc: 'loaded', protocol: CLUSTER_PROTOCOL } satisfies LoadedMessage)
    process.send?.(UNVERSIONED_HELLO)
  })
}

/** A worker's `svc start`: the primary logged the warnings and prints the listening line for all. */
export async function runWorker (config: ServerConfig): Promise<void> {
  const mongodbUri = await goAhead()
  const server = await startServer({ ...config, mongodbUri })
  serveAsWorker(server)
  server.app.log.info({ url: server.url, worker: config.workerId }, 'svc worker listening')
  closeWithGrace({ delay: 10_000, logger: { error: (m: unknown) => server.app.log.error(m) } }, async () => {
    await server.close()
  })
}
