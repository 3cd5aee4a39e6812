import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'

export interface AuthPluginOptions {
  jwtSecret: string
  accessTokenTtlSeconds: number
  bcryptRounds: number
}

// Placeholder wiring; the auth layer (JWT, /register, /login, /auth/refresh, X-Client-Id) replaces this.
async function auth (_app: FastifyInstance, _opts: AuthPluginOptions): Promise<void> {}

export default fp(auth, { name: '@svc/core.auth' })
