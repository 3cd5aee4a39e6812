/** What a stream watches — one collection, one database or the whole deployment — and what ends it. */
import type { ChangeEntry } from './history.js'

export type Scope = { kind: 'cluster' } | { kind: 'db'; db: string } | { kind: 'coll'; db: string; coll: string }

/** mongod's internal databases, never in a stream */
const INTERNAL_DBS = new Set(['admin', 'config', 'local'])

export function inScope (scope: Scope, e: ChangeEntry): boolean {
  switch (scope.kind) {
    case 'cluster':
      return !INTERNAL_DBS.has(e.db)
    case 'db':
      return e.db === scope.db
    case 'coll':
      return e.db === scope.db && e.coll === scope.coll && e.op !== 'dropDatabase'
  }
}

/** A collection stream ends at the drop or rename of its collection, a database stream at the drop of its database. */
export function invalidates (scope: Scope, e: ChangeEntry): boolean {
  if (scope.kind === 'coll') return e.op === 'drop' || e.op === 'rename'
  if (scope.kind === 'db') return e.op === 'dropDatabase'
  return false
}
