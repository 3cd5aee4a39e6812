import { Type, type TSchema } from '@sinclair/typebox'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { RequestContext } from '../identity.js'
import type { AggregationModel, AggregationParam } from '../schema/aggregations.js'
import type { ResourceService } from '../service/resource-service.js'
import { documentedInput } from './route-docs.js'

function paramSchema (p: AggregationParam, of: string[]): TSchema {
  const description = `${p.typeName}${p.required ? ', required' : ''}; a param of ${of.join(', ')}`
  switch (p.kind) {
    case 'number':
      return Type.Number({ description })
    case 'boolean':
      return Type.Boolean({ description })
    case 'date':
      return Type.String({ description, examples: ['2024-05-01'] })
    default:
      return Type.String({ description })
  }
}

/** Every declared param of every aggregation, documented as optional query parameters. */
function querySchema (aggregations: AggregationModel[]): TSchema {
  const props: Record<string, TSchema> = {}
  for (const a of aggregations) {
    for (const p of a.params) {
      if (props[p.name] !== undefined) continue
      const of = aggregations.filter((x) => x.params.some((q) => q.name === p.name)).map((x) => x.name)
      props[p.name] = Type.Optional(paramSchema(p, of))
    }
  }
  return Type.Object(props)
}

/**
 * `GET /<path>/aggregations/<name>`: declared params as query parameters, answered with
 * `{ results }` (CONTRACT.md). Registered inside the resource's child plugin, so it shares its
 * authentication hook; casting, tenancy, `unsafe` and caching live in the service, which also
 * checks the params (so the route schema only documents them).
 */
export function aggregationRoutes (
  app: FastifyInstance,
  service: ResourceService,
  context: (request: FastifyRequest) => RequestContext
): void {
  const { aggregations } = service.model
  if (aggregations.length === 0) return
  const names = aggregations.map((a) => a.name)
  app.get(
    `/${service.model.path}/aggregations/:name`,
    {
      schema: {
        summary: `Run a declared ${service.model.path} aggregation (${names.join(', ')})`,
        description: aggregations
          .map(
            (a) =>
              `- \`${a.name}\`${a.description !== undefined ? `: ${a.description}` : ''}${a.params.length > 0 ? ` (params: ${a.params.map((p) => p.name).join(', ')})` : ''}`
          )
          .join('\n'),
        params: Type.Object({ name: Type.String({ enum: names }) }),
        querystring: querySchema(aggregations),
        response: { 200: Type.Object({ results: Type.Array(Type.Object({}, { additionalProperties: true })) }) }
      },
      validatorCompiler: documentedInput
    },
    async (request) => {
      const { name } = request.params as { name: string }
      return await service.aggregations.run(context(request), name, { ...(request.query as Record<string, unknown>) })
    }
  )
}
