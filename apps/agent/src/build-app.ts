import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify'
import { createModel, openStore, redactUrl, svcAgent, type AgentOptions, type AgentStore } from '@svc/agent'
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

/** Request lines without link codes or query values (a refresh token sent to /oauth/callback). */
const serializers = {
  req: (req: { method: string; url: string; host?: string; ip?: string }) => ({
    method: req.method,
    url: redactUrl(req.url),
    host: req.host,
    remoteAddress: req.ip
  })
}

/** Fastify's typings lack its hop-count form; this is what it does with a number. */
function hops (count: number): (address: string, hop: number) => boolean {
  return (_address, hop) => hop < count
}

/** The agent process: `/healthz` plus the agent's routes, configured from the environment. */
export async function buildAgentApp (
  config: AgentConfig,
  opts: { logger?: FastifyServerOptions['logger'] } = {}
): Promise<FastifyInstance> {
  const app = Fastify({
    logger: opts.logger ?? { redact: REDACT_PATHS, serializers },
    genReqId: () => crypto.randomUUID(),
    requestIdHeader: false,
    trustProxy: typeof config.trustProxy === 'number' ? hops(config.trustProxy) : config.trustProxy
  })
  app.addHook('onSend', async (req, reply) => {
    reply.header('x-request-id', req.id)
  })
  app.get('/healthz', async () => ({ status: 'ok' }))
  let auth: AgentOptions['auth']
  let store: AgentStore | undefined
  // Service mode keeps links nowhere; a STORE_URL set anyway shares its rate limits (several processes on Redis).
  if (config.authMode === 'per-user' || config.storeUrlSet) {
    const opened = await openStore(config.storeUrl)
    app.addHook('onClose', async () => {
      await opened.close()
    })
    store = opened
  }
  if (config.authMode === 'per-user') {
    auth = {
      mode: 'per-user',
      accessTtlSeconds: config.accessTtlSeconds,
      refreshSkewSeconds: config.refreshSkewSeconds,
      linkTtlSeconds: config.linkTtlSeconds
    }
  } else {
    auth = { mode: 'service', bearer: config.svcBearer, clientId: config.svcClientId }
  }
  await app.register(svcAgent, {
    store,
    publicUrl: config.linkBaseUrl,
    limits: config.limits,
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
