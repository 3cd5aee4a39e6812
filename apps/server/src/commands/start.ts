import cluster from 'node:cluster'
import closeWithGrace from 'close-with-grace'
import { formatProblems, loadConfig } from '../config.js'
import { keepLocalSecret, localSecretPath } from './local-secret.js'

/** `svc start`: validate the environment, start, and shut down gracefully on SIGTERM/SIGINT. */
export async function runStart (): Promise<void> {
  const { config, problems, warnings } = loadConfig(process.env)
  if (config == null) {
    process.stderr.write(formatProblems(problems))
    process.exit(1)
  }

  // SVC_WORKERS above 1: the cluster's primary, or one of its workers (cluster/).
  if (config.workers > 1 || cluster.isWorker) {
    const { runClustered } = await import('../cluster/run.js')
    await runClustered(config, warnings)
    return
  }
  // Loaded here, not at the top: a cluster primary serves no request and never loads the server.
  const { startServer } = await import('../start.js')
  const server = await startServer(config)
  const log = server.app.log
  // Only a generated (development) secret: `svc token` on this machine signs with it while it runs.
  const forget = config.jwtSecretGenerated ? await keepLocalSecret(config.dataDir, config.jwtSecret) : null
  if (forget != null) {
    log.info({ path: localSecretPath(config.dataDir) }, 'generated JWT_SECRET kept for svc token while the server runs')
  }
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
