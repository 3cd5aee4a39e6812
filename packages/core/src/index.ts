import fp from 'fastify-plugin'
import { EventEmitter } from 'node:events'
import type { FastifyInstance } from 'fastify'
import authPlugin from './auth/index.js'
import type { SvcContext, SvcCoreOptions } from './types.js'

export * from './errors.js'
export type { Identity, RequestContext, Surface } from './identity.js'
export type { SvcContext, SvcCoreOptions, SvcAuth } from './types.js'
// Auth helpers for hosts and the CLI (offline minting, duration parsing, user/client admin).
export { parseDuration, signAccessToken, UserStore, ApiClientStore, normalizeEmail, DEFAULT_REFRESH_TOKEN_TTL_SECONDS } from './auth/index.js'
export type { AccessClaims, PublicUser } from './auth/index.js'

const TWO_HOURS = 2 * 60 * 60

async function svcCore (app: FastifyInstance, opts: SvcCoreOptions): Promise<void> {
  if (opts.db == null) throw new Error('@svc/core: option `db` (a mongodb Db) is required')
  if (typeof opts.jwtSecret !== 'string' || opts.jwtSecret.length === 0) throw new Error('@svc/core: option `jwtSecret` is required')
  // TODO(core): parse durations, load registry, resource service, routes, error handler.
  const accessTokenTtlSeconds = typeof opts.accessTokenTtl === 'number' ? opts.accessTokenTtl : 900
  if (accessTokenTtlSeconds > TWO_HOURS) throw new Error('@svc/core: accessTokenTtl above the 2 h ceiling')

  const svc: SvcContext = {
    db: opts.db,
    registry: null,
    events: new EventEmitter(),
    config: { pageSize: opts.pageSize ?? 20, bcryptRounds: opts.bcryptRounds ?? 10, accessTokenTtlSeconds },
    auth: null as unknown as SvcContext['auth'] // installed by the auth layer below
  }
  app.decorate('svc', svc)
  app.decorateRequest('identity', null)
  await app.register(authPlugin, { jwtSecret: opts.jwtSecret, accessTokenTtlSeconds, bcryptRounds: svc.config.bcryptRounds })
}

export default fp(svcCore, { name: '@svc/core', fastify: '5.x' })
export { svcCore }
