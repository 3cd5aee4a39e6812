import { hostname } from 'node:os'

const LEVELS = { info: 30, warn: 40, error: 50 } as const

/**
 * The primary's log lines: JSON in pino's shape (level, time, pid, hostname, msg), on stdout next
 * to the workers' Fastify lines, so one log pipeline reads both. The primary serves no request,
 * so it needs no logger of its own beyond this; nor does a worker before its server exists.
 */
export function clusterLog (
  level: keyof typeof LEVELS,
  fields: Record<string, unknown>,
  msg: string,
  name: 'svc-primary' | 'svc-worker' = 'svc-primary'
): void {
  const line = {
    level: LEVELS[level],
    time: Date.now(),
    pid: process.pid,
    hostname: hostname(),
    name,
    ...fields,
    msg
  }
  process.stdout.write(
    `${JSON.stringify(line, (_k, v: unknown) => (v instanceof Error ? { message: v.message, stack: v.stack } : v))}\n`
  )
}

/** A line of the primary (see clusterLog). */
export const primaryLog = (level: keyof typeof LEVELS, fields: Record<string, unknown>, msg: string): void => {
  clusterLog(level, fields, msg)
}
