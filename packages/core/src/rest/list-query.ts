import { ValidationError } from '../errors.js'
import type { ResourceModel } from '../schema/model.js'
import type { ListQuery } from '../service/types.js'

const FRAMEWORK = new Set([
  '__page',
  '__perPage',
  '__sort',
  '__include',
  '__includeDeleted',
  '__cursor',
  '__count',
  'q'
])

/**
 * Splits a REST query string into framework parameters and field filters. Field filters stay
 * raw text: the service decodes JSON operator objects and casts, the same way for every surface.
 */
export function toListQuery (_model: ResourceModel, query: Record<string, unknown>): ListQuery {
  const filter: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(query)) {
    if (FRAMEWORK.has(key)) continue
    if (key.startsWith('__')) throw new ValidationError(`unknown framework parameter '${key}'`, { field: key })
    if (Array.isArray(value)) {
      throw new ValidationError(`'${key}' is given more than once: use {"$in": [...]}`, { field: key })
    }
    filter[key] = value
  }
  const out: ListQuery = { filter }
  if (query.q !== undefined) out.q = query.q as string
  if (query.__include !== undefined) out.include = query.__include as string
  if (query.__sort !== undefined) out.sort = query.__sort as string
  if (query.__page !== undefined) out.page = query.__page as number
  if (query.__perPage !== undefined) out.perPage = query.__perPage as number
  if (query.__cursor !== undefined) out.cursor = query.__cursor as string
  if (query.__count !== undefined) out.count = flag('__count', query.__count)
  if (query.__includeDeleted !== undefined) {
    out.includeDeleted = query.__includeDeleted === true || query.__includeDeleted === 'true'
  }
  return out
}

function flag (name: string, value: unknown): boolean {
  if (value === true || value === 'true') return true
  if (value === false || value === 'false') return false
  throw new ValidationError(`${name} must be true or false`, { field: name })
}
