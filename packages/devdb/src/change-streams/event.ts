/** The change event document a stream returns for one history entry, shaped as mongod 7.0's. */
import type { Document } from 'bson'
import { CommandError } from '../errors.js'
import type { Catalog } from '../engine/catalog.js'
import type { ChangeEntry } from './history.js'
import { describeUpdate } from './update-description.js'

export type FullDocumentMode = 'default' | 'updateLookup' | 'whenAvailable' | 'required'
export type BeforeChangeMode = 'off' | 'whenAvailable' | 'required'

export interface EventOptions {
  fullDocument: FullDocumentMode
  fullDocumentBeforeChange: BeforeChangeMode
}

export function changeEvent (e: ChangeEntry, token: Document, opts: EventOptions, catalog: Catalog): Document {
  const ev: Document = { _id: token, operationType: e.op, clusterTime: e.time, wallTime: e.wallTime }
  switch (e.op) {
    case 'insert':
    case 'replace':
      ev.fullDocument = e.post
      break
    case 'update':
      if (opts.fullDocument === 'updateLookup') {
        ev.fullDocument = catalog.get(e.db, e.coll as string)?.getById(e.id) ?? null
      } else if (opts.fullDocument !== 'default') ev.fullDocument = postImage(e, opts.fullDocument)
      break
    default:
  }
  ev.ns = e.coll !== undefined ? { db: e.db, coll: e.coll } : { db: e.db }
  if (e.to !== undefined) ev.to = e.to
  if (e.id !== undefined) ev.documentKey = { _id: e.id }
  if (e.op === 'update') ev.updateDescription = describeUpdate(e.pre ?? {}, e.post ?? {})
  if (opts.fullDocumentBeforeChange !== 'off' && (e.op === 'update' || e.op === 'replace' || e.op === 'delete')) {
    ev.fullDocumentBeforeChange = preImage(e, opts.fullDocumentBeforeChange)
  }
  if (e.txn !== undefined) {
    ev.lsid = e.txn.lsid
    ev.txnNumber = e.txn.txnNumber
  }
  return ev
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
