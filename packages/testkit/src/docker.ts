import { existsSync } from 'node:fs'
import { request } from 'node:http'
import { homedir } from 'node:os'
import { join } from 'node:path'

/** Where a Docker engine can be reached: a unix socket path, or a TCP host and port. */
export type DockerEndpoint = { socketPath: string } | { host: string; port: number }

type Env = Record<string, string | undefined>

/**
 * The Docker endpoint to probe, or null when none can exist. Without `DOCKER_HOST` only socket
 * files that exist count, so a machine without Docker pays one `existsSync` per path, no I/O wait.
 */
export function dockerEndpoint (
  env: Env = process.env,
  exists: (path: string) => boolean = existsSync
): DockerEndpoint | null {
  const dockerHost = env.DOCKER_HOST
  if (dockerHost != null && dockerHost !== '') {
    if (dockerHost.startsWith('unix://')) {
      const socketPath = dockerHost.slice('unix://'.length)
      return exists(socketPath) ? { socketPath } : null
    }
    const m = /^tcp:\/\/([^:/]+):(\d+)/.exec(dockerHost)
    return m == null ? null : { host: m[1], port: Number(m[2]) }
  }
  const candidates = [
    '/var/run/docker.sock',
    join(homedir(), '.docker', 'run', 'docker.sock'),
    env.XDG_RUNTIME_DIR != null ? join(env.XDG_RUNTIME_DIR, 'docker.sock') : null
  ]
  for (const socketPath of candidates) {
    if (socketPath != null && exists(socketPath)) return { socketPath }
  }
  return null
}

/** True when the engine answers `GET /_ping` within `timeoutMs` (a stale socket file does not count). */
export async function dockerAnswers (endpoint: DockerEndpoint, timeoutMs = 1500): Promise<boolean> {
  return await new Promise((resolve) => {
    const req = request({ ...endpoint, path: '/_ping', method: 'GET', timeout: timeoutMs }, (res) => {
      res.resume()
      resolve(res.statusCode === 200)
    })
    req.on('timeout', () => {
      req.destroy()
    })
    req.on('error', () => {
      resolve(false)
    })
    req.end()
  })
}
