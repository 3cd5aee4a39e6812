/** aggregate: leading $match through the engine (indexes, $text), the rest through mingo. */
import type { Document } from 'bson'
import { Aggregator } from 'mingo/aggregator'
import type { Handler } from './context.js'
import { CommandError, Codes } from '../errors.js'
import { isPlainDoc } from '../engine/paths.js'
import { select } from '../engine/select.js'
import { cloneDoc } from '../engine/update/apply.js'
import { mingoOptions } from '../query/options.js'
import { translateMingoError } from '../query/mingo-errors.js'
import { validatePipeline, rewriteMeta, rewriteSortMeta, stageName, TEXT_SCORE_FIELD } from '../query/pipeline.js'
import { prepareForStorage } from './write-common.js'
import { checkCollation, checkHint } from './find.js'
import { nonNegative } from './args.js'
import { assertValidCollectionName } from '../engine/collection.js'
import { buildIndex } from '../engine/index-build.js'
import { parseMerge, writeMerge } from './merge-stage.js'
import type { Deadline } from '../engine/deadline.js'

const READ_ONLY_STAGES = new Set(['$match', '$sort', '$limit', '$skip', '$count', '$group', '$sortByCount', '$sample'])

export const aggregateCommand: Handler = (cmd, ctx) => {
  const target = cmd.aggregate
  if (cmd.explain === true) throw new CommandError(Codes.NotImplemented, 'NotImplemented', 'explain is not supported by devdb')
  if (!isPlainDoc(cmd.cursor)) {
    throw new CommandError(Codes.FailedToParse, 'FailedToParse', "The 'cursor' option is required, except for aggregate with the explain argument")
  }
  checkCollation(cmd)
  const pipeline = validatePipeline(cmd.pipeline)
  const batchSize = nonNegative(typeof cmd.cursor.batchSize === 'number' ? cmd.cursor.batchSize : undefined, 'batchSize')
  const catalog = ctx.server.catalog
  const variables = isPlainDoc(cmd.let) ? cmd.let : undefined
  let source: Document[]
  let rest = pipeline
  let hasScores = false
  if (target === 1) {
    if (pipeline.length === 0 || stageName(pipeline[0]) !== '$documents') {
      throw new CommandError(Codes.InvalidNamespace, 'InvalidNamespace', `{aggregate: 1} is not valid for '${pipeline.length > 0 ? stageName(pipeline[0]) : ''}'; a collection is required.`)
    }
    source = []
  } else {
    if (typeof target !== 'string') throw new CommandError(Codes.TypeMismatch, 'TypeMismatch', "Invalid command format: the 'aggregate' field must specify a collection name or 1")
    const coll = catalog.get(ctx.db, target)
    checkHint(coll, cmd.hint)
    let filter: Document | undefined
    if (pipeline.length > 0 && stageName(pipeline[0]) === '$match') {
      filter = pipeline[0].$match
      rest = pipeline.slice(1)
    }
    const { docs, score } = select(coll, filter, { deadline: ctx.deadline }, variables)
    if (score !== undefined) {
      hasScores = true
      source = docs.map(d => ({ ...cloneDoc(d), [TEXT_SCORE_FIELD]: score(d) }))
    } else {
      // Some mingo stages ($addFields on dotted paths, $unwind…) write into their input; only
      // pipelines made of read-only stages may see the stored documents themselves.
      source = rest.every(st => READ_ONLY_STAGES.has(stageName(st))) ? docs : docs.map(cloneDoc)
    }
  }
  const used = { textScore: false }
  rest = rest.map(stage => {
    const name = stageName(stage)
    if (name === '$sort') return { $sort: rewriteSortMeta(stage.$sort, used) }
    if (name === '$project' || name === '$addFields' || name === '$set' || name === '$group' || name === '$replaceRoot' || name === '$replaceWith') {
      return { [name]: rewriteMeta(stage[name], used) }
    }
    return stage
  })
  if (used.textScore && !hasScores) {
    throw new CommandError(40218, 'Location40218', 'query requires text score metadata, but it is not available')
  }
  let outStage: unknown
  let mergeStage: unknown
  if (rest.length > 0 && stageName(rest[rest.length - 1]) === '$out') {
    outStage = rest[rest.length - 1].$out
    rest = rest.slice(0, -1)
  } else if (rest.length > 0 && stageName(rest[rest.length - 1]) === '$merge') {
    mergeStage = rest[rest.length - 1].$merge
    parseMerge(mergeStage, ctx.db)
    rest = rest.slice(0, -1)
  }
  let results: Document[]
  try {
    const opts = mingoOptions({
      ...(variables !== undefined ? { variables } : {}),
      collectionResolver: (name: string) => [...(catalog.get(ctx.db, name)?.docs.values() ?? [])].map(cloneDoc)
    })
    results = rest.length === 0 ? source : drain(new Aggregator(rest, opts).stream(ticking(source, ctx.deadline)), ctx.deadline)
  } catch (e) {
    throw translateMingoError(e)
  }
  if (hasScores) {
    for (const r of results) if (isPlainDoc(r) && TEXT_SCORE_FIELD in r) delete r[TEXT_SCORE_FIELD]
  }
  ctx.server.opcounters.command++
  const ns = typeof target === 'string' ? `${ctx.db}.${target}` : `${ctx.db}.$cmd.aggregate`
  if (outStage !== undefined) {
    writeOut(outStage, results, ctx)
    return ctx.server.cursors.firstBatch(ns, [], batchSize)
  }
  if (mergeStage !== undefined) {
    writeMerge(mergeStage, results, ctx)
    return ctx.server.cursors.firstBatch(ns, [], batchSize)
  }
  return ctx.server.cursors.firstBatch(ns, results, batchSize)
}

/** $out: replaces the target collection's documents (keeping its indexes), all-or-nothing. */
function writeOut (spec: unknown, results: Document[], ctx: Parameters<Handler>[1]): void {
  let db = ctx.db
  let name: unknown = spec
  if (isPlainDoc(spec)) {
    db = typeof spec.db === 'string' ? spec.db : ctx.db
    name = spec.coll
  }
  if (typeof name !== 'string') throw new CommandError(Codes.TypeMismatch, 'TypeMismatch', '$out target must be a string or {db, coll}')
  assertValidCollectionName(name)
  const catalog = ctx.server.catalog
  const old = catalog.get(db, name)
  const journal: typeof ctx.journal = []
  // Build into a staging collection first so a duplicate key leaves the target untouched.
  const specs = old?.userIndexes.map(ix => ix.spec) ?? []
  const staging = catalog.create(`${db}`, `tmp.agg_out.${Date.now()}.${Math.floor(Math.random() * 1e6)}`, {}, [])
  try {
    for (const ix of old?.userIndexes ?? []) staging.addIndex(rebuild(ix.spec))
    for (const r of results) staging.insert(prepareForStorage(r))
  } finally {
    catalog.drop(db, staging.name, [])
  }
  if (old !== undefined) catalog.drop(db, name, journal)
  const target = catalog.create(db, name, old?.options ?? {}, journal)
  for (const s of specs) {
    const ix = rebuild(s)
    target.addIndex(ix)
    journal.push({ t: 'createIndex', db, coll: name, index: { ...s } as never })
  }
  for (const d of staging.docs.values()) {
    target.insert(d)
    journal.push({ t: 'put', db, coll: name, doc: d })
  }
  ctx.journal.push(...journal)
}

/** Feeds the pipeline one document at a time, counting each against the command's time budget. */
function * ticking (docs: Document[], deadline: Deadline): Generator<Document> {
  for (const d of docs) {
    deadline.tick()
    yield d
  }
}

function drain (it: { next: () => { done?: boolean, value?: unknown } }, deadline: Deadline): Document[] {
  const out: Document[] = []
  for (let r = it.next(); r.done !== true; r = it.next()) {
    deadline.tick()
    out.push(r.value as Document)
  }
  return out
}

function rebuild (spec: Document): ReturnType<typeof buildIndex> { return buildIndex(spec) }
