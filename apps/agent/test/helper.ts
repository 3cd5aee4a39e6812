import { spawn } from 'node:child_process'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import Fastify from 'fastify'
import svcCore from '@svc/core'
import svcMcp from '@svc/mcp'
import { agentConversationsSchema } from '@svc/agent/schemas'
import { getTestDb, type Teardownable } from '@svc/testkit'

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..')
export const SECRET = 'agent-app-test-secret-0123456789abcdef'

export interface AgentProcess {
  done: Promise<{ code: number | null; stderr: string }>
  url: Promise<string>
  kill: (signal?: NodeJS.Signals) => void
  stdout: () => string
}

export function runAgent (env: Record<string, string>): AgentProcess {
  // The child records no coverage: tap's process tracking would otherwise count it in some runs
  // and not in others (a killed child writes none), so the package's figure would swing.
  const child = spawn(process.execPath, ['apps/agent/bin/agent.js'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', _TAPJS_PROCESSINFO_COVERAGE_: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  let stdout = ''
  let stderr = ''
  let found: (url: string) => void = () => {}
  const url = new Promise<string>((resolve) => {
    found = resolve
  })
  child.stdout.on('data', (c: Buffer) => {
    stdout += c.toString()
    const m = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout)
    if (m != null) found(m[1])
  })
  child.stderr.on('data', (c: Buffer) => {
    stderr += c.toString()
  })
  const done = new Promise<{ code: number | null; stderr: string }>((resolve) =>
    child.on('exit', (code) => resolve({ code, stderr }))
  )
  return {
    done,
    url,
    kill: (signal = 'SIGTERM') => {
      child.kill(signal)
    },
    stdout: () => stdout
  }
}

/** A live service (core, MCP, the conversation schema) on an ephemeral port. */
export async function startService (
  t: Teardownable,
  extra: unknown[] = []
): Promise<{ url: string; app: ReturnType<typeof Fastify> }> {
  const { db } = await getTestDb(t)
  const app = Fastify({ logger: false })
  await app.register(svcCore, {
    db,
    jwtSecret: SECRET,
    bcryptRounds: 4,
    schemas: [{ path: 'notes', fields: [{ name: 'text', type: String }] }, agentConversationsSchema, ...extra] as any
  })
  await app.register(svcMcp)
  t.teardown(async () => await app.close())
  await app.listen({ host: '127.0.0.1', port: 0 })
  return { url: `http://127.0.0.1:${(app.server.address() as { port: number }).port}`, app }
}
