import { hostname } from 'node:os'

const LEVELS = { info: 30, warn: 40, error: 50 } as const

/**
 * The primary's log lines: JSON in pino's shape (level, time, pid, hostname, msg), on stdout next
 * to the workers' Fastify lines, so one log pipeline reads both. The primary serves no request,
 * so it needs no logger of its own beyond this.
 */
export function primaryLog (level: keyof typeof LEVELS, fields: Record<string, unknown>, msg: string): void {
  const line = {
    level: LEVELS[level],
    time: Date.now(),
    pid: process.pid,
    hostname: hostname(),
    name: 'svc-primary',
    ...fields,
    msg
  }
  process.stdout.write(
    `${JSON.stringify(line, (_k, v: unknown) => (v instanceof Error ? { message: v.message, stack: v.stack } : v))}\n`
  )
}
