import cluster from 'node:cluster'
import type { ServerConfig } from '../config.js'

/**
 * `svc start` with SVC_WORKERS above 1. Loaded only then (a dynamic import): a single process
 * never loads the cluster's code.
 */
export async function runClustered (config: ServerConfig, warnings: string[]): Promise<void> {
  if (cluster.isWorker) {
    const { runWorker } = await import('./worker.js')
    await runWorker(config)
  } else {
    const { runPrimary } = await import('./primary.js')
    await runPrimary(config, warnings)
  }
}
