import { ObjectId, type Document } from 'mongodb'
import { ValidationError } from '../errors.js'
import type { RequestContext } from '../identity.js'
import type { RelationModel, ResourceModel } from '../schema/model.js'
import { SchemaError, hint } from '../schema/schema-error.js'
import { MAX_RELATED } from '../values/limits.js'
import type { ListQuery, ListResult, ReadOptions, RecordJson } from './types.js'
import { buildFilter } from './filter.js'
import { readOptions } from './read-options.js'
import { and, type Operation } from './tenancy.js'
import { collectionOf } from './record-collection.js'

/** hasMany arrays (and the hasOne pick) follow the list default: newest first, `_id` tiebreak. */
const RELATED_SORT = { createdAt: -1, _id: -1 } as const
const HEX24 = /^[0-9a-fA-F]{24}$/

/** What an include needs from a resource service (structural, so the two modules do not import each other). */
export interface RelationTarget {
  readonly model: ResourceModel
  readonly maxTimeMS: number
  scopeFilter: (ctx: RequestContext, op: Operation, options?: ReadOptions) => Document
  present: (ctx: RequestContext, doc: Document) => RecordJson
  readableFields: (ctx: RequestContext) => Set<string> | null
  /** One page of the target's list rules inside an already scoped filter (relation lists). */
  findPage: (ctx: RequestContext, query: ListQuery, scoped: Document) => Promise<ListResult>
}

interface CompiledRelation {
  relation: RelationModel
  target: RelationTarget
  where: Document
}
export type Related = Record<string, RecordJson | RecordJson[] | null>

/** A foreign-key value as a lower-case 24-hex key, whether stored as ObjectId or string. */
function keyOf (v: unknown): string | undefined {
  if (v instanceof ObjectId) return v.toHexString()
  return typeof v === 'string' && HEX24.test(v) ? v.toLowerCase() : undefined
}

/** The value at a (possibly dotted) fk path of a stored document. */
function valueAt (doc: Document, path: string): unknown {
  let v: unknown = doc
  for (const part of path.split('.')) {
    v = v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Document)[part] : undefined
  }
  return v
}

function refuse (message: string, relation?: string): never {
  throw new ValidationError(message, { field: '__include', ...(relation !== undefined ? { relation } : {}) })
}

/**
 * `__include` for one schema: one query per included relation for a whole page (ids collected,
 * `$in`), the caller's tenant and the target's scopes (tombstones always hidden) re-applied on
 * the target, every populated record through the target's `present()` (its field ACL).
 */
export class RelationLoader {
  readonly #model: ResourceModel
  readonly #lookup: (path: string) => RelationTarget
  #compiled: Map<string, CompiledRelation> | null = null

  constructor (model: ResourceModel, lookup: (path: string) => RelationTarget) {
    this.#model = model
    this.#lookup = lookup
  }

  /** Resolves targets and casts `where` through the filter rules; called at start-up so mistakes stop boot. */
  compile (): Map<string, CompiledRelation> {
    if (this.#compiled != null) return this.#compiled
    const out = new Map<string, CompiledRelation>()
    const m = this.#model
    for (const relation of Object.values(m.relations)) {
      const key =
        m.definition.relations?.[relation.name] === undefined
          ? `fields.${relation.fk}.reference`
          : `relations.${relation.name}`
      if (m.fieldsByPath.has(relation.name)) {
        throw new SchemaError(
          m.source,
          key,
          `relation '${relation.name}' has the name of a field: an include would overwrite it`
        )
      }
      const target = this.#lookup(relation.target)
      let where: Document = {}
      try {
        where = buildFilter(target.model, relation.where)
      } catch (err) {
        throw new SchemaError(m.source, `relations.${relation.name}.where`, (err as Error).message)
      }
      out.set(relation.name, { relation, target, where })
    }
    this.#compiled = out
    return out
  }

  /** The relations `names` (already parsed) with their kinds and target models, for pricing an include. */
  targets (names: string[]): Array<{ kind: RelationModel['kind']; target: ResourceModel }> {
    const compiled = this.compile()
    return names.map((n) => {
      const c = compiled.get(n)!
      return { kind: c.relation.kind, target: c.target.model }
    })
  }

  /** `a,b` → relation names; empty, dotted (nested) and unknown names are 400 naming them. */
  parse (raw: unknown): string[] {
    if (raw === undefined || raw === null) return []
    const text = Array.isArray(raw) ? raw.join(',') : raw
    if (typeof text !== 'string') refuse('__include must be a comma-separated list of relation names')
    const names = text.split(',').map((n) => n.trim())
    const known = Object.keys(this.#model.relations)
    for (const n of names) {
      if (n === '') refuse('__include has an empty relation name')
      if (n.includes('.')) refuse(`nested include '${n}' is not supported: includes go one hop only`, n)
      if (!Object.hasOwn(this.#model.relations, n)) {
        refuse(`unknown relation '${n}' on ${this.#model.path}${hint(n, known)}`, n)
      }
    }
    return [...new Set(names)]
  }

  /**
   * One page of a `hasMany`/`hasOne` relation of the parent `parentId` (already read by the
   * caller): the target's list query (filter, sort, paging; no include, no tombstones) inside the
   * relation's fk, its `where` and the caller's tenant on the target.
   */
  async list (ctx: RequestContext, parentId: string, name: string, query: ListQuery): Promise<ListResult> {
    const [relation] = this.parse(name)
    const c = this.compile().get(relation)!
    if (c.relation.kind === 'belongsTo') {
      refuse(`'${relation}' is a belongsTo relation: it is one record, not a list`, relation)
    }
    this.#checkReadable(ctx, c)
    const key = { [c.relation.fk]: { $in: [parentId, new ObjectId(parentId)] } }
    const page: ListQuery = { ...query, include: undefined, includeDeleted: false }
    return await c.target.findPage(ctx, page, and(key, c.where, this.#targetFilter(ctx, c)))
  }

  /** Related records for each parent document (raw BSON docs of the page), in page order. */
  async populate (ctx: RequestContext, docs: Document[], names: string[]): Promise<Related[]> {
    const out: Related[] = docs.map(() => ({}))
    if (docs.length === 0 || names.length === 0) return out
    const compiled = this.compile()
    for (const name of names) this.#checkReadable(ctx, compiled.get(name)!)
    await Promise.all(
      names.map(async (name) => {
        const c = compiled.get(name)!
        if (c.relation.kind === 'belongsTo') await this.#belongsTo(ctx, c, docs, out)
        else await this.#hasMany(ctx, c, docs, out)
      })
    )
    return out
  }

  /**
   * The link itself is data: a caller who may not read the foreign key (on this schema for
   * belongsTo, on the target otherwise) may not learn it through an include either.
   */
  #checkReadable (ctx: RequestContext, c: CompiledRelation): void {
    const holder = c.relation.kind === 'belongsTo' ? this.#service() : c.target
    const readable = holder.readableFields(ctx)
    if (readable !== null && !readable.has(c.relation.fk.split('.')[0])) {
      refuse(`include '${c.relation.name}' goes through '${c.relation.fk}', which you cannot read`, c.relation.name)
    }
  }

  #service (): RelationTarget {
    return this.#lookup(this.#model.path)
  }

  /** The caller's tenant, re-applied on the target whatever the target's ACL, plus its scopes without tombstones. */
  #targetFilter (ctx: RequestContext, c: CompiledRelation): Document {
    const scoped = c.target.scopeFilter(ctx, 'get', { includeDeleted: false })
    const userId = ctx.identity?.kind === 'user' ? ctx.identity.userId : null
    return userId == null || scoped.userId === userId ? scoped : and(scoped, { userId })
  }

  async #find (ctx: RequestContext, c: CompiledRelation, match: Document): Promise<Document[]> {
    const filter = and(match, c.where, this.#targetFilter(ctx, c))
    // batchSize = limit: the whole answer in one round trip (no getMore after the default 101).
    const found = await collectionOf(c.target)
      .find(filter, {
        sort: RELATED_SORT,
        limit: MAX_RELATED + 1,
        batchSize: MAX_RELATED + 1,
        ...readOptions(c.target, ctx)
      })
      .toArray()
    if (found.length > MAX_RELATED) {
      refuse(
        `include '${c.relation.name}' matches more than ${MAX_RELATED} records for this page: use a smaller __perPage`,
        c.relation.name
      )
    }
    return found
  }

  async #belongsTo (ctx: RequestContext, c: CompiledRelation, docs: Document[], out: Related[]): Promise<void> {
    const name = c.relation.name
    const keys = new Set<string>()
    for (const d of docs) {
      const k = keyOf(valueAt(d, c.relation.fk))
      if (k !== undefined) keys.add(k)
    }
    const byId = new Map<string, RecordJson>()
    if (keys.size > 0) {
      const found = await this.#find(ctx, c, { _id: { $in: [...keys].map((k) => new ObjectId(k)) } })
      for (const t of found) byId.set(keyOf(t._id)!, c.target.present(ctx, t))
    }
    docs.forEach((d, i) => {
      out[i][name] = byId.get(keyOf(valueAt(d, c.relation.fk)) ?? '') ?? null
    })
  }

  async #hasMany (ctx: RequestContext, c: CompiledRelation, docs: Document[], out: Related[]): Promise<void> {
    const { name, fk, kind } = c.relation
    const keys = [...new Set(docs.map((d) => keyOf(d._id)).filter((k): k is string => k !== undefined))]
    // The key on the target may hold the parent id as a string or as an ObjectId: match both.
    const found = await this.#find(ctx, c, { [fk]: { $in: [...keys, ...keys.map((k) => new ObjectId(k))] } })
    const groups = new Map<string, RecordJson[]>()
    for (const t of found) {
      const json = c.target.present(ctx, t)
      const v = valueAt(t, fk)
      const values: unknown[] = Array.isArray(v) ? v : [v]
      for (const k of new Set(values.map(keyOf))) {
        if (k === undefined) continue
        const g = groups.get(k)
        if (g === undefined) groups.set(k, [json])
        else g.push(json)
      }
    }
    docs.forEach((d, i) => {
      const g = groups.get(keyOf(d._id) ?? '') ?? []
      out[i][name] = kind === 'hasOne' ? (g[0] ?? null) : g
    })
  }
}
