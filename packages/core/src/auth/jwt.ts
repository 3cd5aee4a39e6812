import fastifyJwt from '@fastify/jwt'
import type { FastifyInstance } from 'fastify'
import { pickClaims, type AccessClaims } from './claims.js'

/** Only HS256 is ever signed or accepted; `none` and every other algorithm are refused. */
export const JWT_ALGORITHM = 'HS256'
/** Verified tokens remembered (see `createJwtService`). */
const JWT_CACHE_SIZE = 10_000

export interface JwtService {
  sign(claims: AccessClaims, ttlSeconds: number): string
  /** Returns the verified payload or throws (bad signature, wrong algorithm, expired, malformed). */
  verify(token: string): unknown
}

/**
 * Registers @fastify/jwt inside an encapsulated child context so its `jwt` decorators stay
 * private to @svc/core: a host app that uses @fastify/jwt for its own tokens keeps working.
 */
export async function createJwtService (
  app: FastifyInstance,
  secret: string,
  defaultTtlSeconds: number
): Promise<JwtService> {
  let jwt: FastifyInstance['jwt'] | undefined
  await app.register(async (child) => {
    await child.register(fastifyJwt, {
      secret,
      // @fastify/jwt reads a numeric expiresIn as seconds.
      sign: { algorithm: JWT_ALGORITHM, expiresIn: defaultTtlSeconds },
      // A bearer comes back on every request: fast-jwt's cache keeps each verified token's payload
      // (keyed by its SHA-256, so only the identical token hits) until its `exp` or ten minutes,
      // sparing the HMAC and the JSON decoding on each repeat (a few µs a request). The payload is
      // shared by those hits: callers read it (identityFromClaims copies what it keeps). Bounded:
      // 10,000 tokens, a few MB. errorCacheTTL 0: a failed verification is not kept.
      verify: { algorithms: [JWT_ALGORITHM], cache: JWT_CACHE_SIZE, errorCacheTTL: 0 },
      decode: { complete: false }
    })
    jwt = child.jwt
  })
  return {
    sign (claims, ttlSeconds) {
      if (jwt == null) throw new Error('@svc/core: JWT service used before the plugin finished loading')
      // Passing options builds a new signer, so only do it for a non-default lifetime.
      return ttlSeconds === defaultTtlSeconds
        ? jwt.sign({ ...pickClaims(claims) })
        : jwt.sign({ ...pickClaims(claims) }, { expiresIn: ttlSeconds })
    },
    verify (token) {
      if (jwt == null) throw new Error('@svc/core: JWT service used before the plugin finished loading')
      return jwt.verify(token)
    }
  }
}
