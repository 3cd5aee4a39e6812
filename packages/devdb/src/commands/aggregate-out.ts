/** $out: replaces the target collection's documents (keeping its indexes), all-or-nothing. */
import type { Document } from 'bson'
import type { CommandContext } from './context.js'
import { CommandError, Codes } from '../errors.js'
import { isPlainDoc } from '../bson/paths.js'
import { prepareForStorage } from './write-common.js'
import { assertValidCollectionName } from '../engine/collection.js'
import { buildIndex } from '../engine/index-build.js'

export function writeOut (spec: unknown, results: Document[], ctx: CommandContext): void {
  let db = ctx.db
  let name: unknown = spec
  if (isPlainDoc(spec)) {
    db = typeof spec.db === 'string' ? spec.db : ctx.db
    name = spec.coll
  }
  if (typeof name !== 'string') {
    throw new CommandError(Codes.TypeMismatch, 'TypeMismatch', '$out target must be a string or {db, coll}')
  }
  assertValidCollectionName(name)
  const catalog = ctx.server.catalog
  const old = catalog.get(db, name)
  const journal: typeof ctx.journal = []
  // Build into a staging collection first so a duplicate key leaves the target untouched.
  const specs = old?.userIndexes.map((ix) => ix.spec) ?? []
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
  for (const d of staging.documents()) {
    target.insert(d)
    journal.push({ t: 'put', db, coll: name, doc: d })
  }
  ctx.journal.push(...journal)
}

function rebuild (spec: Document): ReturnType<typeof buildIndex> {
  return buildIndex(spec)
}
