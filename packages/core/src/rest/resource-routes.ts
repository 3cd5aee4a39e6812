import type { FastifyInstance, FastifyRequest } from 'fastify'
import { requestContext as context } from '../http/request-context.js'
import { ValidationError } from '../errors.js'
import type { ResourceService } from '../service/resource-service.js'
import { toListQuery } from './list-query.js'
import { aggregationRoutes } from './aggregation-routes.js'
import { resourceValidatorCompiler } from './validator.js'
import { jsonOnly } from '../http/json-only.js'
import { AnyObject, documentedResponse, IdempotencyHeaders } from './route-docs.js'

export interface ResourceRoutesOptions {
  service: ResourceService
}

const READ_METHODS = new Set(['GET', 'HEAD'])

/**
 * The REST surface of one schema, an encapsulated child plugin registered with prefix
 * `/api/<version>`. Routes only translate HTTP to service calls; every rule lives in the service.
 */
export async function resourceRoutes (app: FastifyInstance, opts: ResourceRoutesOptions): Promise<void> {
  const { service } = opts
  const { model } = service
  const s = model.schemas
  const base = `/${model.path}`
  const name = model.path

  app.setValidatorCompiler(resourceValidatorCompiler)
  // Response schemas document these routes; answers stay JSON.stringify'd (see route-docs.ts).
  app.setSerializerCompiler(documentedResponse)
  jsonOnly(app)

  // Every route authenticates; api clients (X-Client-Id) only on reads, and the service
  // still refuses their writes so GraphQL/MCP behave the same.
  app.addHook('onRequest', async (request) => {
    await app.svc.auth.authenticate(request, { allowClient: READ_METHODS.has(request.method) })
  })

  // Ajv drops keys the body schema does not declare (computed fields among them), so the raw
  // body is screened first: a computed or ACL-protected name is refused, never silently dropped.
  const screen = (mode: 'create' | 'update', pick: (body: unknown) => unknown) => async (request: FastifyRequest) => {
    service.screenWrite(context(request), pick(request.body), mode)
  }
  const whole = (b: unknown): unknown => b
  const bulkRecord = (b: unknown): unknown => (b as { record?: unknown } | null)?.record

  app.post(
    base,
    {
      schema: {
        summary: `Create a ${name} record`,
        headers: IdempotencyHeaders,
        body: s.create,
        response: { 201: s.read }
      },
      preValidation: screen('create', whole)
    },
    async (request, reply) => {
      const key = request.headers['idempotency-key']
      if (key === undefined) return await reply.code(201).send(await service.create(context(request), request.body))
      if (Array.isArray(key)) {
        throw new ValidationError('Idempotency-Key is given more than once', { field: 'Idempotency-Key' })
      }
      const { record, replayed } = await service.createOnce(context(request), request.body, key)
      // The first answer again, status included; the header tells a replay from a fresh create.
      if (replayed) void reply.header('idempotent-replayed', 'true')
      return await reply.code(201).send(record)
    }
  )

  app.get(
    base,
    {
      schema: {
        summary: `List ${name} records (filters, search, sort, pages)`,
        querystring: s.listQuery,
        response: { 200: s.list }
      }
    },
    async (request) => {
      return await service.list(context(request), toListQuery(model, request.query as Record<string, unknown>))
    }
  )

  app.put(
    base,
    {
      schema: {
        summary: `Bulk update ${name} records matching a filter (inserts one when none matches)`,
        body: s.bulk,
        response: { 200: s.bulkResult }
      },
      preValidation: screen('update', bulkRecord)
    },
    async (request) => {
      const body = request.body as { filter: Record<string, unknown>; record: unknown }
      return await service.bulkPut(context(request), body.filter, body.record)
    }
  )

  // Built per request by the `_describe` builder: soft delete/audit plugins register after core.
  app.get(
    `${base}-schema`,
    {
      schema: {
        summary: `The ${name} schema as _describe lists it`,
        response: { 200: AnyObject('one schemas[] entry of GET /_describe') }
      }
    },
    async () => app.svc.manifest.schema(model)
  )

  aggregationRoutes(app, service, context)

  app.get(
    `${base}/:id`,
    {
      schema: {
        summary: `Get one ${name} record`,
        params: s.params,
        querystring: s.getQuery,
        response: { 200: s.read }
      }
    },
    async (request) => {
      const { id } = request.params as { id: string }
      const q = request.query as { __include?: string; __includeDeleted?: boolean }
      return await service.get(context(request), id, {
        includeDeleted: q.__includeDeleted === true,
        ...(q.__include !== undefined ? { include: q.__include } : {})
      })
    }
  )

  app.put(
    `${base}/:id`,
    {
      schema: {
        summary: `Update a ${name} record (null clears a field)`,
        params: s.params,
        body: s.update,
        response: { 200: s.read }
      },
      preValidation: screen('update', whole)
    },
    async (request) => {
      const { id } = request.params as { id: string }
      return await service.updateById(context(request), id, request.body)
    }
  )

  app.delete(
    `${base}/:id`,
    { schema: { summary: `Delete a ${name} record`, params: s.params, response: { 200: s.read } } },
    async (request) => {
      const { id } = request.params as { id: string }
      return await service.deleteById(context(request), id)
    }
  )
}
