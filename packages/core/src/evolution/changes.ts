/**
 * What a schema change does to stored data and to existing clients (`svc schema plan`):
 * - `safe`: nothing stored stops fitting (an optional field, a wider enum);
 * - `needs-data`: stored records may stop fitting the files (a required field without default,
 *   a narrower enum, a changed type, a removed or renamed field, a raised `min`): a migration;
 * - `needs-index`: a new unique index, built at start-up, refused by existing duplicates;
 * - `needs-version`: the API contract changes for existing clients (what `version` is for).
 */
export type ChangeClass = 'safe' | 'needs-data' | 'needs-index' | 'needs-version'

export type ChangeKind =
  | 'resource-added'
  | 'resource-removed'
  | 'version-added'
  | 'version-moved'
  | 'collection-changed'
  | 'soft-delete-off'
  | 'soft-delete-on'
  | 'audit-changed'
  | 'field-added'
  | 'field-removed'
  | 'field-renamed'
  | 'type-changed'
  | 'required-added'
  | 'required-removed'
  | 'default-changed'
  | 'enum-added'
  | 'enum-narrowed'
  | 'enum-widened'
  | 'enum-removed'
  | 'min-added'
  | 'min-raised'
  | 'min-lowered'
  | 'min-removed'
  | 'lowercase-added'
  | 'lowercase-removed'
  | 'states-removed'
  | 'states-added'
  | 'computed-added'
  | 'computed-removed'
  | 'read-restricted'
  | 'read-opened'
  | 'searchable-changed'
  | 'index-added'
  | 'index-removed'
  | 'relation-removed'
  | 'relation-added'
  | 'aggregation-removed'
  | 'aggregation-added'
  /** Two versions serve one collection, and the older returns a field the newer hides from some roles. */
  | 'acl-gap'
  /** Stored records that do not fit a field although no declared change explains it. */
  | 'stored-data'

/** How many stored records a change leaves not fitting the files (see impact.ts). */
export interface ChangeImpact {
  /** Records of the collection (an estimate from the collection's metadata). */
  total: number
  /** Records read: the sample, or every record with `exact`. */
  checked: number
  exact: boolean
  /** Records failing now: exact, or extrapolated from the sample (rounded). */
  failing: number
  /** Sampled: a 95 % interval of `failing` (Wilson). */
  failingRange?: [number, number]
  /** Tenants with a failing record: exact, or the tenants seen failing in the sample (a lower bound). */
  tenants: number
  /** The same once the pending migrations ran over the records read (in memory). */
  afterMigrations?: { failing: number; tenants: number }
  /** One failing record's problem, for the reader. */
  example?: { recordId: string; userId: string | null; message: string }
  /** Set when the check stopped at its time bound: the figures cover `checked` records only. */
  partial?: true
}

/** Existing duplicates of a new unique index, per tenant (the index's first key). */
export interface DuplicateImpact {
  /** Groups of records sharing one key value. */
  groups: number
  records: number
  tenants: number
  example?: { key: Record<string, unknown>; count: number }
  /** The check did not finish within its time bound: unknown. */
  timedOut?: true
}

export interface SchemaChange {
  /** `<version>/<path>` of the resource in the files (or in the snapshot when it was removed). */
  resource: string
  collection: string
  kind: ChangeKind
  class: ChangeClass
  /** The change also breaks existing clients of this version (the `version` key should carry it). */
  needsVersion: boolean
  /** Dotted field path, for field changes. */
  field?: string
  /** One line for a reader. */
  message: string
  /** Field paths whose stored values this change judges (their validation problems count toward it). */
  paths?: string[]
  /** `index-added`: the unique index spec. */
  index?: Record<string, 1 | -1>
  impact?: ChangeImpact
  duplicates?: DuplicateImpact
  /** `collection-changed`: records left in the previous collection (an estimate). */
  stranded?: number
  /**
   * The change only leaves stored values behind (a removed field): cleanup data, but nothing
   * fails, so start-up does not refuse for it — files rolled back to an older release must start.
   */
  leftBehind?: true
}

/** Classes that mean stored data must change before the files can be served safely. */
export function isDataBreaking (c: SchemaChange): boolean {
  if (c.class === 'needs-index') return c.duplicates !== undefined && c.duplicates.groups > 0
  if (c.class !== 'needs-data' || c.leftBehind === true) return false
  if (c.kind === 'collection-changed') return (c.stranded ?? 1) > 0
  return c.impact === undefined || c.impact.failing > 0
}
