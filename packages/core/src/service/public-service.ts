import type { RelationLoader } from './relations.js'
import type { ResourceService } from './resource-service.js'

/** The members of a schema's service that plugins and surfaces call (see PublicResourceService). */
type PublicMember =
  | 'model'
  | 'maxTimeMS'
  | 'aggregations'
  // Operations every surface drives.
  | 'list'
  | 'findMany'
  | 'get'
  | 'listRelated'
  | 'create'
  | 'createOnce'
  | 'createMany'
  | 'updateById'
  | 'updateOne'
  | 'bulkPut'
  | 'transition'
  | 'deleteById'
  | 'deleteMany'
  // The seams a surface validates or presents through.
  | 'screenWrite'
  | 'present'
  | 'readableFields'
  | 'eventAudience'
  // Extension points.
  | 'addScope'
  | 'setDeleteStrategy'
  | 'addDurableEffect'
  | 'onWrite'
  | 'onPurge'
  | 'wantBulkRecords'
  // Plugin operations (soft delete, files), each under the service's rules.
  | 'scopeFilter'
  | 'updateWhere'
  | 'readFile'
  | 'checkFileWrite'
  | 'setFile'
  | 'purgeDeletedBefore'
  | 'ensureIndex'
  | 'fileNamingKey'
  | 'fileKeysOf'

/**
 * A schema's service as plugins and surfaces see it (`app.svc.services.get(path)`, exported as
 * `ResourceService`). The class holds more that only core's own modules call — migrations
 * (`migrateBatch`, `stored`), the write fan-out (`publish`, `purged`), pricing (`charge`,
 * `priceRead`), the page read relations share (`findPage`) — and this type leaves it out, so a
 * plugin cannot come to depend on it. `test/types/public-service.tst.ts` holds the line.
 */
export type PublicResourceService = Pick<ResourceService, PublicMember> & {
  /** `__include` of records a surface already holds (GraphQL's relation fields). */
  readonly relations: Pick<RelationLoader, 'populate'>
}

/** `app.svc.services` (exported as `ResourceServices`): one service per schema and version. */
export interface PublicResourceServices {
  /** The service for a schema path; `version` defaults to v1. Throws for an unknown schema. */
  get: (path: string, version?: string) => PublicResourceService
  all: () => PublicResourceService[]
  /** Settles the write intents of writes a crash interrupted (core runs it on a timer too). */
  reconcileIntents: () => Promise<{ happened: number; dropped: number }>
}
