import type { FastifyInstance } from 'fastify'

/**
 * Inside an encapsulated context of JSON routes: Fastify's default `text/plain` parser would turn
 * a wrongly labelled body into a string and a misleading "body must be object"; without it the
 * body parser answers 415 UNSUPPORTED_MEDIA_TYPE. The host's own routes keep their parsers.
 */
export function jsonOnly (app: FastifyInstance): void {
  app.removeContentTypeParser('text/plain')
}
