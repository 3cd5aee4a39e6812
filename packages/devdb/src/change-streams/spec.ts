/** The `$changeStream` stage's specification, checked as mongod 7.0 checks it. */
import { Timestamp, type Document } from 'bson'
import { CommandError, Codes, badValue } from '../errors.js'
import { isPlainDoc } from '../bson/paths.js'
import type { BeforeChangeMode, FullDocumentMode } from './event.js'

export interface ChangeStreamSpec {
  fullDocument: FullDocumentMode
  fullDocumentBeforeChange: BeforeChangeMode
  resumeAfter?: unknown
  startAfter?: unknown
  startAtOperationTime?: Timestamp
  allChangesForCluster: boolean
}

const FIELDS = new Set([
  'fullDocument',
  'fullDocumentBeforeChange',
  'resumeAfter',
  'startAfter',
  'startAtOperationTime',
  'allChangesForCluster',
  'showExpandedEvents',
  'showMigrationEvents',
  'showSystemEvents',
  'allowToRunOnConfigDB',
  'allowToRunOnSystemNS'
])
const FULL_DOCUMENT = ['default', 'updateLookup', 'whenAvailable', 'required']
const BEFORE_CHANGE = ['off', 'whenAvailable', 'required']

export function parseChangeStreamSpec (raw: unknown): ChangeStreamSpec {
  if (!isPlainDoc(raw)) {
    throw new CommandError(50808, 'Location50808', '$changeStream stage expects a document as argument')
  }
  for (const k of Object.keys(raw)) {
    if (!FIELDS.has(k)) {
      throw new CommandError(40415, 'Location40415', `BSON field '$changeStream.${k}' is an unknown field.`)
    }
  }
  const spec: ChangeStreamSpec = {
    fullDocument: enumField(raw, 'fullDocument', FULL_DOCUMENT, 'default') as FullDocumentMode,
    fullDocumentBeforeChange: enumField(raw, 'fullDocumentBeforeChange', BEFORE_CHANGE, 'off') as BeforeChangeMode,
    allChangesForCluster: raw.allChangesForCluster === true
  }
  if (raw.resumeAfter !== undefined) spec.resumeAfter = raw.resumeAfter
  if (raw.startAfter !== undefined) spec.startAfter = raw.startAfter
  if (raw.startAtOperationTime !== undefined) {
    if (!(raw.startAtOperationTime instanceof Timestamp)) {
      throw new CommandError(
        Codes.TypeMismatch,
        'TypeMismatch',
        "BSON field '$changeStream.startAtOperationTime' is the wrong type, expected type 'timestamp'"
      )
    }
    spec.startAtOperationTime = raw.startAtOperationTime
  }
  if (spec.resumeAfter !== undefined && spec.startAfter !== undefined) {
    throw new CommandError(
      50865,
      'Location50865',
      "Do not specify both 'startAfter' and 'resumeAfter' as resume options"
    )
  }
  if (spec.startAtOperationTime !== undefined && (spec.resumeAfter !== undefined || spec.startAfter !== undefined)) {
    throw new CommandError(
      40674,
      'Location40674',
      'Only one type of resume option is allowed, but multiple were found.'
    )
  }
  return spec
}

function enumField (raw: Document, field: string, values: string[], dflt: string): string {
  const v: unknown = raw[field]
  if (v === undefined) return dflt
  if (typeof v !== 'string') {
    throw new CommandError(
      Codes.TypeMismatch,
      'TypeMismatch',
      `BSON field '$changeStream.${field}' is the wrong type, expected type 'string'`
    )
  }
  if (!values.includes(v)) {
    throw badValue(`Enumeration value '${v}' for field '$changeStream.${field}' is not a valid value.`)
  }
  return v
}
