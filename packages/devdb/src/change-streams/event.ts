/** The change event document a stream returns for one history entry, shaped as mongod 7.0's. */
import type { Document } from 'bson'
import { CommandError } from '../errors.js'
import type { Catalog } from '../engine/catalog.js'
import type { ChangeEntry } from './history.js'
import { describeUpdate } from './update-description.js'
import type { CostlyField } from './pushdown.js'

export type FullDocumentMode = 'default' | 'updateLookup' | 'whenAvailable' | 'required'
export type BeforeChangeMode = 'off' | 'whenAvailable' | 'required'

export interface EventOptions {
  fullDocument: FullDocumentMode
  fullDocumentBeforeChange: BeforeChangeMode
}

/**
 * `needs`: the costly fields to build (undefined: all) — a pipeline that neither reads nor keeps
 * the others gets events without them. A required image is looked for anyway: its absence is an error.
 */
export function changeEvent (
  e: ChangeEntry,
  token: Document,
  opts: EventOptions,
  catalog: Catalog,
  needs?: Set<CostlyField>
): Document {
  const ev: Document = { _id: token, operationType: e.op, clusterTime: e.time, wallTime: e.wallTime }
  const post = needs === undefined || needs.has('fullDocument') || opts.fullDocument === 'required'
  switch (e.op) {
    case 'insert':
    case 'replace':
      if (post) ev.fullDocument = e.post
      break
    case 'update':
      if (!post || opts.fullDocument === 'default') break
      if (opts.fullDocument === 'updateLookup') {
        ev.fullDocument = catalog.get(e.db, e.coll as string)?.getById(e.id) ?? null
      } else ev.fullDocument = postImage(e, opts.fullDocument)
      break
    default:
  }
  ev.ns = e.coll !== undefined ? { db: e.db, coll: e.coll } : { db: e.db }
  if (e.to !== undefined) ev.to = e.to
  if (e.id !== undefined) ev.documentKey = { _id: e.id }
  if (e.op === 'update' && (needs === undefined || needs.has('updateDescription'))) {
    ev.updateDescription = describeUpdate(e.pre ?? {}, e.post ?? {})
  }
  const pre =
    needs === undefined || needs.has('fullDocumentBeforeChange') || opts.fullDocumentBeforeChange === 'required'
  if (
    pre &&
    opts.fullDocumentBeforeChange !== 'off' &&
    (e.op === 'update' || e.op === 'replace' || e.op === 'delete')
  ) {
    ev.fullDocumentBeforeChange = preImage(e, opts.fullDocumentBeforeChange)
  }
  if (e.txn !== undefined) {
    ev.lsid = e.txn.lsid
    ev.txnNumber = e.txn.txnNumber
  }
  return ev
}

const HEAD_OPTIONS: EventOptions = { fullDocument: 'default', fullDocumentBeforeChange: 'off' }
const NOTHING_COSTLY = new Set<CostlyField>()
const STORED_DOCUMENT = new Set<CostlyField>(['fullDocument'])

/**
 * An event's cheap fields only (HEAD_FIELDS), for a pipeline's leading `$match` to test before
 * the event is built: `changeEvent` without images or update description; `withDocument`
 * (fullDocument 'default'): with an insert's or replacement's stored document.
 */
export function eventHead (e: ChangeEntry, token: Document, catalog: Catalog, withDocument: boolean): Document {
  return changeEvent(e, token, HEAD_OPTIONS, catalog, withDocument ? STORED_DOCUMENT : NOTHING_COSTLY)
}

function postImage (e: ChangeEntry, mode: FullDocumentMode): Document | null {
  if (e.images && e.post !== undefined) return e.post
  if (mode === 'required') {
    throw new CommandError(
      47,
      'NoMatchingDocument',
      `Change stream was configured to require a post-image for all update, delete and replace events, but the post-image was not found for event: ${e.db}.${e.coll ?? ''}`
    )
  }
  return null
}

function preImage (e: ChangeEntry, mode: BeforeChangeMode): Document | null {
  if (e.images && e.pre !== undefined) return e.pre
  if (mode === 'required') {
    throw new CommandError(
      47,
      'NoMatchingDocument',
      `Change stream was configured to require a pre-image for all update, delete and replace events, but the pre-image was not found for event: ${e.db}.${e.coll ?? ''}`
    )
  }
  return null
}
