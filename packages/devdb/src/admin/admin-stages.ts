/**
 * The aggregation stages that read the server rather than a collection — `$collStats` (first
 * stage on a collection) and `$currentOp` (first stage of `{ aggregate: 1 }` on admin) — turned
 * into `$documents` of their output, which the rest of the pipeline then processes.
 */
import type { Document } from 'bson'
import type { CommandContext } from '../commands/context.js'
import { type CommandError, Codes } from '../errors.js'
import { adminError } from './error-codes.js'
import { isPlainDoc } from '../bson/paths.js'
import { typeLabel } from '../commands/args.js'
import { currentOps, parseCurrentOpSpec } from './current-op.js'
import { parseScale, storageStats } from './stats.js'

const SOURCES = new Set(['$collStats', '$currentOp'])

/** The pipeline with a leading `$collStats`/`$currentOp` replaced by its documents, or undefined. */
export function serverSourceStage (cmd: Document, ctx: CommandContext): unknown[] | undefined {
  const pipeline: unknown = cmd.pipeline
  if (!Array.isArray(pipeline)) return undefined
  pipeline.slice(1).forEach((st) => {
    const name = isPlainDoc(st) ? Object.keys(st)[0] : undefined
    if (name !== undefined && SOURCES.has(name)) {
      throw adminError(40602, `${name} is only valid as the first stage in a pipeline`)
    }
  })
  const first: unknown = pipeline[0]
  const name = isPlainDoc(first) ? Object.keys(first)[0] : undefined
  if (name === undefined || !SOURCES.has(name)) return undefined
  if (cmd.autocommit !== undefined) {
    throw adminError(
      Codes.OperationNotSupportedInTransaction,
      `Operation not permitted in transaction :: caused by :: Stage not supported inside of a multi-document transaction: ${name}`
    )
  }
  const spec: unknown = (first as Document)[name]
  const docs =
    name === '$currentOp'
      ? currentOps(ctx.server, parseCurrentOpSpec(spec, ctx, cmd.aggregate))
      : [collStats(spec, cmd.aggregate, ctx)]
  return [{ $documents: { $literal: docs } }, ...pipeline.slice(1)]
}

const COLL_STATS_OPTIONS = new Set(['latencyStats', 'storageStats', 'count', 'queryExecStats'])

function collStats (spec: unknown, target: unknown, ctx: CommandContext): Document {
  if (!isPlainDoc(spec)) {
    throw adminError(Codes.FailedToParse, `$collStats must take a nested object but found: ${typeLabel(spec)}`)
  }
  if (typeof target !== 'string') {
    throw adminError(Codes.InvalidNamespace, '$collStats must be run against a collection namespace')
  }
  for (const [k, v] of Object.entries(spec)) {
    if (!COLL_STATS_OPTIONS.has(k)) throw adminError(40415, `BSON field '$collStats.${k}' is an unknown field.`)
    if (!isPlainDoc(v)) {
      throw adminError(
        Codes.TypeMismatch,
        `BSON field '$collStats.${k}' is the wrong type '${typeLabel(v)}', expected type 'object'`
      )
    }
  }
  const ns = `${ctx.db}.${target}`
  const out: Document = { ns, host: `${ctx.server.host}:${ctx.server.port}`, localTime: new Date() }
  if (isPlainDoc(spec.latencyStats)) {
    if (spec.latencyStats.histograms === true) {
      throw adminError(Codes.NotImplemented, 'devdb keeps no latency histograms')
    }
    out.latencyStats = ctx.server.admin.latency.of(ns)
  }
  if (spec.queryExecStats !== undefined) {
    throw adminError(Codes.NotImplemented, 'devdb does not count collection scans per collection (queryExecStats)')
  }
  const coll = ctx.server.catalog.get(ctx.db, target)
  const missing = (what: string): CommandError =>
    adminError(
      Codes.NamespaceNotFound,
      `Unable to retrieve ${what} in $collStats stage :: caused by :: Collection [${ns}] not found.`
    )
  if (isPlainDoc(spec.storageStats)) {
    if (coll === undefined) throw missing('storageStats')
    out.storageStats = storageStats(coll, parseScale(spec.storageStats.scale, 'scale'))
  }
  if (spec.count !== undefined) {
    if (coll === undefined) throw missing('count')
    out.count = coll.size
  }
  return out
}
