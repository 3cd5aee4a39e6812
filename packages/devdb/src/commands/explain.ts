/** explain of find, count, distinct and aggregate, in mongod 7.0's classic-engine shape. */
import type { Document } from 'bson'
import type { CommandContext, Handler } from './context.js'
import { CommandError, Codes } from '../errors.js'
import { isPlainDoc } from '../bson/paths.js'
import { openQuery } from '../engine/select.js'
import { explainSections, parseVerbosity, serverInfo, type Verbosity } from '../plan/explain.js'
import { countResult, isFastCount, openCount, openFind, parseCount, parseDistinct, parseFind } from './find.js'
import { aggregateExplain, planAggregate } from './aggregate.js'
import { VERSION } from './handshake.js'

/** Explainable in mongod but not here: refused rather than answered with a made-up plan. */
const NOT_EXPLAINED = new Set(['update', 'delete', 'findAndModify', 'findandmodify', 'mapReduce'])

function sectionsFor (name: string, inner: Document, ctx: CommandContext, verbosity: Verbosity): Document {
  const ns = `${ctx.db}.${String(inner[name])}`
  switch (name) {
    case 'find': {
      const q = parseFind(inner, ctx)
      const exec = openFind(q, inner, ctx)
      return explainSections({ ns, filter: q.filter, exec, verbosity, run: () => exec?.drain() })
    }
    case 'count': {
      const q = parseCount(inner, ctx)
      if (isFastCount(q, inner)) {
        return explainSections({
          ns,
          filter: q.query,
          verbosity,
          run: () => {},
          stage: { stage: 'RECORD_STORE_FAST_COUNT' }
        })
      }
      const exec = openCount(q, inner, ctx)
      return explainSections({
        ns,
        filter: q.query,
        exec,
        verbosity,
        run: () => {
          if (exec !== undefined) countResult(exec)
        }
      })
    }
    case 'distinct': {
      const q = parseDistinct(inner, ctx)
      const exec =
        q.coll === undefined
          ? undefined
          : openQuery(q.coll, q.prepared, {
            deadline: ctx.deadline,
            hint: inner.hint,
            planCache: false,
            errorContext: 'Executor error during distinct command'
          })
      return explainSections({ ns, filter: q.query, exec, verbosity, run: () => exec?.drain() })
    }
    case 'aggregate':
      return aggregateExplain(planAggregate(inner, ctx), inner, ctx, verbosity)
  }
  if (NOT_EXPLAINED.has(name)) {
    throw new CommandError(Codes.NotImplemented, 'NotImplemented', `explain of ${name} is not supported by devdb`)
  }
  throw new CommandError(Codes.CommandNotFound, 'CommandNotFound', `Explain failed due to unknown command: ${name}`)
}

export const explainCommand: Handler = (cmd, ctx) => {
  const inner = cmd.explain
  if (!isPlainDoc(inner) || Object.keys(inner).length === 0) {
    throw new CommandError(
      Codes.TypeMismatch,
      'TypeMismatch',
      "BSON field 'explain.explain' is the wrong type, expected type 'object'"
    )
  }
  const verbosity = parseVerbosity(cmd.verbosity)
  const name = Object.keys(inner)[0]
  ctx.explaining = true
  const sections = sectionsFor(name, inner, ctx, verbosity)
  return {
    explainVersion: '1',
    ...sections,
    command: { ...inner, $db: ctx.db },
    serverInfo: serverInfo(ctx.server.host, ctx.server.port, VERSION),
    serverParameters: {
      internalQueryMaxBlockingSortMemoryUsageBytes: 104857600,
      internalQueryPlanEvaluationWorks: 10000,
      internalQueryPlanEvaluationMaxResults: 101
    },
    ok: 1
  }
}
