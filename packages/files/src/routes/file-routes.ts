import type { FastifyInstance, FastifyReply, FastifyRequest, FastifySchema } from 'fastify'
import multipart from '@fastify/multipart'
import { ValidationError, type ResourceService } from '@svc/core'
import { requestContext as context } from '@svc/core/kit'
import { fileFields } from '../storage/stores.js'
import type { FilesApi } from '../types.js'
import { uploadFromMultipart } from './multipart-upload.js'
import { FileMetaSchema, FileMetaWithUrlSchema, IdParamsSchema, OkSchema, uploadBodySchema } from './schemas.js'

// @fastify/swagger's `hide`: the catch-all below is not an operation of the API.
const HIDDEN = { hide: true } as FastifySchema

export interface FileRoutesOptions {
  services: ResourceService[]
  files: Pick<FilesApi, 'upload' | 'fetch' | 'remove'>
}

// How long a refused client gets to read its answer before the connection is cut.
const ANSWER_GRACE_MS = 5000

/**
 * An upload refused before its body ended (oversize, wrong type, no such record): the answer is
 * sent with `Connection: close`, the rest of the body is no longer read (Node would otherwise
 * drain it to keep the connection), and the connection ends once the answer is out.
 */
function endAfterAnswer (request: FastifyRequest, reply: FastifyReply): void {
  if (request.raw.complete) return
  request.raw.unpipe()
  request.raw.pause()
  void reply.header('connection', 'close')
  reply.raw.once('finish', () => {
    const socket = request.raw.socket
    // FIN first so the client can read the answer; then stop it for good.
    socket.end()
    setTimeout(() => socket.destroy(), ANSWER_GRACE_MS).unref()
  })
}

/**
 * `POST|GET|DELETE /<path>/:id/<field>` for every file field of one version's schemas, an
 * encapsulated plugin (prefix `/api/<version>`) so multipart parsing stays on these routes.
 * Thin adapters: every rule lives behind the files API and core's service.
 */
export async function fileRoutes (app: FastifyInstance, opts: FileRoutesOptions): Promise<void> {
  // The upload counts bytes itself (see multipart-upload.ts); busboy's limit only stops it early.
  await app.register(multipart, { throwFileSizeLimit: false })
  // Route schemas document the routes (Swagger); ids are checked by the service (404), and the
  // multipart body is parsed by the handler, so nothing here is validated by Ajv.
  app.setValidatorCompiler(() => () => true)
  app.addHook('onRequest', async (request) => {
    await app.svc.auth.authenticate(request, { allowClient: request.method === 'GET' || request.method === 'HEAD' })
  })

  for (const service of opts.services) {
    const { path, version } = service.model
    const names = fileFields(service.model).map((f) => f.name)
    // Any other `/:id/<name>` is a field that is not a file field: 400 naming the ones that are
    // (not a bare 404). Static routes (restore, history, the file fields) take precedence.
    app.route({
      method: ['POST', 'GET', 'DELETE'],
      url: `/${path}/:id/:field`,
      config: { svcDescribe: false },
      schema: HIDDEN,
      handler: async (request) => {
        const { field } = request.params as { field: string }
        throw new ValidationError(`${field} is not a file field of ${path} (file fields: ${names.join(', ')})`, {
          field
        })
      }
    })
    for (const field of fileFields(service.model)) {
      const url = `/${path}/:id/${field.name}`
      const id = (request: FastifyRequest): string => (request.params as { id: string }).id
      app.post(
        url,
        {
          schema: {
            summary: `Upload ${path}.${field.name}`,
            consumes: ['multipart/form-data'],
            params: IdParamsSchema,
            body: uploadBodySchema(field),
            response: { 200: FileMetaSchema }
          }
        },
        async (request, reply) => {
          try {
            return await uploadFromMultipart(
              request,
              field.file!.maxBytes,
              async (file) => await opts.files.upload(context(request), path, id(request), field.name, file, version)
            )
          } catch (err) {
            endAfterAnswer(request, reply)
            throw err
          }
        }
      )
      app.get(
        url,
        {
          schema: {
            summary: `Metadata and download URL of ${path}.${field.name}`,
            params: IdParamsSchema,
            response: { 200: FileMetaWithUrlSchema }
          }
        },
        async (request) => await opts.files.fetch(context(request), path, id(request), field.name, version)
      )
      app.delete(
        url,
        {
          schema: { summary: `Delete ${path}.${field.name}`, params: IdParamsSchema, response: { 200: OkSchema } }
        },
        async (request) => {
          await opts.files.remove(context(request), path, id(request), field.name, version)
          return { ok: true }
        }
      )
    }
  }
}
