import closeWithGrace from 'close-with-grace'
import type { ServerConfig } from '../config.js'
import { startServer, type RunningServer } from '../start.js'

/** The primary's message asking a worker to finish its requests and exit. */
export const DRAIN_MESSAGE = 'svc:drain'

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

/** A worker's `svc start`: the primary logged the warnings and prints the listening line for all. */
export async function runWorker (config: ServerConfig): Promise<void> {
  const server = await startServer(config)
  serveAsWorker(server)
  server.app.log.info({ url: server.url, worker: config.workerId }, 'svc worker listening')
  closeWithGrace({ delay: 10_000, logger: { error: (m: unknown) => server.app.log.error(m) } }, async () => {
    await server.close()
  })
}
