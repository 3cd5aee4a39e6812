import { createHash, timingSafeEqual } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import type { Registry } from 'prom-client'

const digest = (s: string): Buffer => createHash('sha256').update(s).digest()

/** Compares fixed-length digests, so neither the token's bytes nor its length leak through timing. */
function bearerMatches (header: string | undefined, token: string): boolean {
  const m = /^Bearer (.+)$/i.exec(header ?? '')
  return m !== null && timingSafeEqual(digest(m[1]), digest(token))
}

/** `GET /_metrics` in the Prometheus text format; with `token`, only for `Authorization: Bearer <token>`. */
export function metricsRoute (app: FastifyInstance, register: Registry, opts: { path: string; token?: string }): void {
  app.get(opts.path, async (request, reply) => {
    if (opts.token !== undefined && !bearerMatches(request.headers.authorization, opts.token)) {
      return await reply
        .code(401)
        .header('www-authenticate', 'Bearer')
        .send({ error: { code: 'UNAUTHENTICATED', message: 'metrics need Authorization: Bearer <METRICS_TOKEN>' } })
    }
    return await reply.type(register.contentType).send(await register.metrics())
  })
}
