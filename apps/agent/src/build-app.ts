import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify'
import { createModel, openStore, svcAgent, type AgentOptions } from '@svc/agent'
import type { AgentConfig } from './config.js'

/** Redaction configured once, here: tokens, cookies and passwords never reach a log line. */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  'headers.authorization',
  'headers.cookie',
  'password',
  'refreshToken',
  'accessToken',
  '*.password',
  '*.token',
  '*.refreshToken',
  '*.accessToken'
]

/** The agent process: `/healthz` plus the agent's routes, configured from the environment. */
export async function buildAgentApp (config: AgentConfig, opts: { logger?: FastifyServerOptions['logger'] } = {}): Promise<FastifyInstance> {
  const app = Fastify({ logger: opts.logger ?? { redact: REDACT_PATHS }, genReqId: () => crypto.randomUUID(), requestIdHeader: false })
  app.addHook('onSend', async (req, reply) => { reply.header('x-request-id', req.id) })
  app.get('/healthz', async () => ({ status: 'ok' }))
  let auth: AgentOptions['auth']
  if (config.authMode === 'per-user') {
    const store = await openStore(config.storeUrl)
    app.addHook('onClose', async () => { await store.close() })
    auth = { mode: 'per-user', store, linkBaseUrl: config.linkBaseUrl ?? (() => app.listeningOrigin), accessTtlSeconds: config.accessTtlSeconds, refreshSkewSeconds: config.refreshSkewSeconds, linkTtlSeconds: config.linkTtlSeconds }
  } else {
    auth = { mode: 'service', bearer: config.svcBearer, clientId: config.svcClientId }
  }
  await app.register(svcAgent, {
    svcUrl: config.svcUrl,
    model: createModel(config.llm),
    auth,
    agentKey: config.agentKey,
    sessionSecret: config.sessionSecret,
    cookieSecure: config.cookieSecure,
    maxToolRounds: config.maxToolRounds,
    maxResultChars: config.maxResultChars,
    slack: config.slack,
    learning: config.learning,
    serviceWriteTools: config.serviceWriteTools
  })
  return app
}
