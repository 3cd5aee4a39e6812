import cluster from 'node:cluster'
import closeWithGrace from 'close-with-grace'
import { formatProblems, loadConfig } from '../config.js'
import { startServer } from '../start.js'
import { keepLocalSecret, localSecretPath } from './local-secret.js'

/** `svc start`: validate the environment, start, and shut down gracefully on SIGTERM/SIGINT. */
export async function runStart (): Promise<void> {
  const { config, problems, warnings } = loadConfig(process.env)
  if (config == null) {
    process.stderr.write(formatProblems(problems))
    process.exit(1)
  }

  if (config.workers > 1 && cluster.isPrimary) {
    // Loaded only for a cluster: a single process never loads the primary's code.
    const { runPrimary } = await import('../cluster/primary.js')
    await runPrimary(config, warnings)
    return
  }
  const server = await startServer(config)
  if (cluster.isWorker) {
    // The primary logged the warnings and prints the listening line once for all its workers.
    const { serveAsWorker } = await import('../cluster/worker.js')
    serveAsWorker(server)
    server.app.log.info({ url: server.url, worker: config.workerId }, 'svc worker listening')
    closeWithGrace({ delay: 10_000, logger: { error: (m: unknown) => server.app.log.error(m) } }, async () => { await server.close() })
    return
  }
  const log = server.app.log
  // Only a generated (development) secret: `svc token` on this machine signs with it while it runs.
  const forget = config.jwtSecretGenerated ? await keepLocalSecret(config.dataDir, config.jwtSecret) : null
  if (forget != null) log.info({ path: localSecretPath(config.dataDir) }, 'generated JWT_SECRET kept for svc token while the server runs')
  // Once, as JSON like every other line (the process's only plain text is the stderr line below).
  for (const warning of warnings) log.warn(warning)
  log.info({ url: server.url, database: server.database.where }, 'svc listening')
  // Logs own stdout (JSON lines); the human-readable line goes to stderr.
  process.stderr.write(`svc listening on ${server.url} (${server.database.where})\n`)

  closeWithGrace({ delay: 10_000, logger: { error: (m: unknown) => log.error(m) } }, async ({ signal, err }) => {
    if (err != null) log.error({ err }, 'shutting down after an error')
    else log.info({ signal }, 'shutting down')
    await server.close()
    await forget?.()
  })
}
