/**
 * The one place mingo is configured: every query, projection, aggregation and update
 * goes through these options so the BSON-aware operator overrides apply everywhere.
 */
import { Context, ProcessingMode, Query } from 'mingo'
import type { Options } from 'mingo/types'
import type { Document } from 'bson'
import { bsonQueryOperators } from './bson-operators.js'
import { bsonExpressionOperators, bsonPipelineOperators } from './bson-overrides.js'
import { translateMingoError } from './mingo-errors.js'

const overrides = Context.init({
  query: bsonQueryOperators as never,
  expression: bsonExpressionOperators as never,
  pipeline: bsonPipelineOperators as never
})

export function mingoOptions (extra: Partial<Options> = {}): Partial<Options> {
  return {
    idKey: '_id',
    useStrictMode: true,
    scriptEnabled: false,
    processingMode: ProcessingMode.CLONE_OFF,
    context: overrides,
    ...extra
  }
}

export type Matcher = (doc: Document) => boolean

const matchAll: Matcher = () => true

/** Compiles a query filter; throws CommandError (BadValue …) for filters MongoDB rejects. */
export function compileFilter (filter: Document | undefined, extra: Partial<Options> = {}): Matcher {
  if (filter === undefined || filter === null || Object.keys(filter).length === 0) return matchAll
  try {
    const q = new Query(filter, mingoOptions(extra))
    return (doc) => {
      try {
        return q.test(doc)
      } catch (e) {
        throw translateMingoError(e)
      }
    }
  } catch (e) {
    throw translateMingoError(e)
  }
}
