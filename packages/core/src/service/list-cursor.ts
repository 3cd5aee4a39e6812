import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import { BSON, type Document } from 'mongodb'
import { ValidationError } from '../errors.js'
import type { ResourceModel } from '../schema/model.js'

const MAC_BYTES = 16
const MAX_CURSOR_LENGTH = 4096
/** System fields every stored record holds: a keyset on them needs no null branch. */
const ALWAYS_SET = new Set(['_id', 'userId', 'createdAt', 'updatedAt'])

/** Where a cursor continues: after the sort values of the last record seen (keyset) or at an offset. */
export interface CursorPosition {
  page: number
  /** The keyset predicate (records strictly after the last one in sort order), ANDed to the filter. */
  after?: Document
  /** Offset mode (text-score or array sorts, which have no keyset): records to pass over. */
  skip?: number
}

type SortEntry = [path: string, dir: 1 | -1]

/**
 * Opaque list cursors (CONTRACT "Lists: cursors and counts"): base64url of the last record's
 * sort values (EJSON, so dates and ids keep their type) and the next page number, then a
 * truncated HMAC-SHA256 over that payload and the query's shape — the final filter (tenant and
 * scopes included), sort and page size. A cursor altered, or replayed on another query or by
 * another tenant, fails the MAC: 400 VALIDATION. Even a forged position would only move inside
 * the caller's own filter, as the keyset predicate is ANDed to it.
 */
export class ListCursors {
  readonly #key: () => Buffer
  #cached: Buffer | undefined

  constructor (key?: () => Buffer) {
    const own = randomBytes(32)
    this.#key = key ?? (() => own)
  }

  #mac (shape: string, payload: string): Buffer {
    this.#cached ??= this.#key()
    return createHmac('sha256', this.#cached).update(shape).update('\n').update(payload).digest().subarray(0, MAC_BYTES)
  }

  /** The cursor continuing after `last` (the page's last stored document) on page `page`. */
  issue (model: ResourceModel, shape: string, sort: Document, last: Document, page: number, skip: number): string {
    const entries = keysetEntries(model, sort)
    const body = entries === null ? { p: page, o: skip } : { p: page, v: entries.map(([path]) => valueAt(last, path)) }
    const payload = Buffer.from(BSON.EJSON.stringify(body, { relaxed: false })).toString('base64url')
    return `${payload}.${this.#mac(shape, payload).toString('base64url')}`
  }

  /** The position a cursor issued for this very query holds; anything else is 400 VALIDATION. */
  read (model: ResourceModel, shape: string, sort: Document, cursor: unknown): CursorPosition {
    const bad = (): never => {
      throw new ValidationError(
        '__cursor is not a cursor this service issued for this query (same filters, __sort and __perPage)',
        { field: '__cursor' }
      )
    }
    if (typeof cursor !== 'string' || cursor.length > MAX_CURSOR_LENGTH) return bad()
    const [payload, mac, ...rest] = cursor.split('.')
    if (rest.length > 0 || mac === undefined || !/^[A-Za-z0-9_-]+$/.test(payload) || !/^[A-Za-z0-9_-]+$/.test(mac)) {
      return bad()
    }
    const given = Buffer.from(mac, 'base64url')
    if (given.length !== MAC_BYTES || !timingSafeEqual(given, this.#mac(shape, payload))) return bad()
    const body = BSON.EJSON.parse(Buffer.from(payload, 'base64url').toString('utf8'), { relaxed: true }) as {
      p?: unknown
      o?: unknown
      v?: unknown
    }
    if (!Number.isSafeInteger(body.p) || (body.p as number) < 2) return bad()
    const page = body.p as number
    if (body.o !== undefined) {
      return Number.isSafeInteger(body.o) && (body.o as number) >= 0 ? { page, skip: body.o as number } : bad()
    }
    const entries = keysetEntries(model, sort)
    if (entries === null || !Array.isArray(body.v) || body.v.length !== entries.length) return bad()
    return { page, after: keysetAfter(entries, body.v) }
  }
}

/** The sort as [path, direction] pairs, or null when it has no keyset (text score, array fields). */
function keysetEntries (model: ResourceModel, sort: Document): SortEntry[] | null {
  const out: SortEntry[] = []
  for (const [path, dir] of Object.entries(sort)) {
    if (dir !== 1 && dir !== -1) return null // { $meta: 'textScore' }
    if (!ALWAYS_SET.has(path) && throughArray(model, path)) return null
    out.push([path, dir])
  }
  return out
}

/** Whether the path is, or lies inside, an array field: MongoDB sorts those by an element, not a value. */
function throughArray (model: ResourceModel, path: string): boolean {
  const parts = path.split('.')
  for (let i = 1; i <= parts.length; i++) {
    if (model.fieldsByPath.get(parts.slice(0, i).join('.'))?.kind === 'array') return true
  }
  return false
}

function valueAt (doc: Document, path: string): unknown {
  let v: unknown = doc
  for (const part of path.split('.')) {
    if (v === null || typeof v !== 'object') return null
    v = (v as Document)[part]
  }
  return v ?? null
}

/**
 * Records strictly after `values` in the order `entries`: `$or` over each key being beyond its
 * value with every earlier key equal. Null sorts first (before every value), so ascending past
 * null is "not null" and descending past a value also takes the nulls. A leading range on the
 * first key lets an index on (tenant, sort key, _id) start the scan at the position instead of
 * walking the pages before it.
 */
function keysetAfter (entries: SortEntry[], values: unknown[]): Document {
  const branches: Document[] = []
  for (let i = 0; i < entries.length; i++) {
    const [path, dir] = entries[i]
    const beyond = beyondValue(path, dir, values[i])
    if (beyond === undefined) continue
    const equal: Document = {}
    for (let j = 0; j < i; j++) equal[entries[j][0]] = values[j]
    branches.push(Object.keys(equal).length === 0 ? beyond : { $and: [equal, beyond] })
  }
  const keyset = branches.length === 0 ? { _id: { $in: [] } } : branches.length === 1 ? branches[0] : { $or: branches }
  const [first, dir] = entries[0]
  const v = values[0]
  const range = v === null ? undefined : dir === 1 ? { $gte: v } : ALWAYS_SET.has(first) ? { $lte: v } : undefined
  return range === undefined ? keyset : { $and: [{ [first]: range }, keyset] }
}

function beyondValue (path: string, dir: 1 | -1, v: unknown): Document | undefined {
  if (v === null) return dir === 1 ? { [path]: { $ne: null } } : undefined
  if (dir === 1) return { [path]: { $gt: v } }
  return ALWAYS_SET.has(path) ? { [path]: { $lt: v } } : { $or: [{ [path]: { $lt: v } }, { [path]: null }] }
}

/** What a cursor is bound to besides the tenant's key: the query as the database runs it. */
export function queryShape (model: ResourceModel, filter: Document, sort: Document, perPage: number): string {
  return JSON.stringify([model.key, filter, sort, perPage])
}
