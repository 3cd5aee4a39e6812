/**
 * `@svc/core/kit`: the plugin-author kit. What svc's own plugins and surfaces build on — the
 * registry and its models, the resource service's extension points, paging and envelopes, ids,
 * limits, the request-context builders, the event log, auth admin for hosts and the CLI. Less
 * stable than the root export: it follows what the plugins need.
 */
export { codeForStatus, MAX_ISSUES, validationError } from './errors.js'
export type {
  FieldModel,
  FieldKind,
  FileFieldOptions,
  RelationModel,
  ResourceModel,
  ResourceSchemas
} from './schema/model.js'
export { DEFAULT_FILE_MAX_BYTES } from './schema/file-options.js'
export { Registry } from './schema/registry.js'
export { loadRegistry } from './schema/load.js'
export { describeModel } from './schema/describe.js'
export { Manifest, DEFAULT_VERSION } from './describe/manifest.js'
export type {
  ManifestContribution,
  ManifestContributor,
  ManifestEndpoints,
  ManifestFeatures,
  RealtimeEndpoint,
  RestEndpoint
} from './describe/manifest.js'
export { memoryAggregationCache, memoryGenerations } from './service/index.js'
export type {
  Scope,
  DeleteStrategy,
  WriteSubscriber,
  Operation,
  PurgeHook,
  TombstoneUpdate,
  DurableDoc,
  DurableEffect,
  AudienceEvent,
  EventAudience
} from './service/index.js'
// Schema evolution as `svc schema plan|apply` and `app.svc.evolution` run it.
export {
  SchemaEvolution,
  MigrationFileError,
  SchemaCheckError,
  ApplyLockedError,
  MIGRATIONS_COLLECTION,
  SNAPSHOTS_COLLECTION
} from './evolution/index.js'
export type {
  ChangeClass,
  ChangeImpact,
  ChangeKind,
  DuplicateImpact,
  SchemaChange,
  PlanOptions,
  SchemaPlan,
  ApplyOptions,
  ApplyProgress,
  ApplyResourceResult,
  ApplyResult,
  MigrationFailure,
  SchemaCheckMode,
  StoredSnapshot
} from './evolution/index.js'
export type { MigrateBatchOptions, MigrateBatchResult, MigratedRecord } from './service/migrate-batch.js'
export { MigrationInvalidError, MIGRATION_MARKS_COLLECTION } from './service/migrate-batch.js'
export { MigrationStepError, type MigrationStep, type StepImage } from './service/migration-steps.js'
export {
  INTENTS_COLLECTION,
  CostBudget,
  tenantKey,
  memoryUsageStore,
  AGGREGATION_PRICE,
  BULK_WRITE_PRICE,
  pageRecords,
  readPrice,
  recordValues,
  relatedRecords
} from './service/index.js'
export type { CostLimits } from './service/index.js'
export {
  EventLog,
  EVENTS_COLLECTION,
  CONSUMERS_COLLECTION,
  LEASES_COLLECTION,
  DEFAULT_RETENTION_MS,
  derivedUuid,
  checkEventPatterns,
  checkFeedPatterns,
  eventTypeMatches,
  EVENT_ACTIONS
} from './service/event-log/index.js'
export type {
  LoggedEvent,
  PublishedEvent,
  EventLogOptions,
  EventSubscription,
  FollowOptions,
  BatchHandler,
  DurableHandler
} from './service/event-log/index.js'
export { normalizeError, type ErrorEnvelope, type NormalizedError } from './http/error-envelope.js'
export { UNREACHABLE_DRIVER_ERRORS } from './http/driver-errors.js'
export {
  DOCUMENTED,
  documented,
  documentedResponse,
  documentedInput,
  OkSchema,
  AnyObject,
  listEnvelopeSchema
} from './rest/route-docs.js'
// The BSON boundary, paging and the filter/search rules, for plugins that add reads (restore, history) or describe them (MCP).
export { toJson, parseId } from './values/convert.js'
export { resolveField } from './values/resolve-field.js'
// The one vocabulary of limits and filterable keys every surface describes (see values/limits.ts).
export * from './values/limits.js'
export { filterableFields, type FilterableField } from './values/filterable.js'
export { buildPaging } from './service/filter.js'
export { searchablePaths } from './service/search.js'
export { listEnvelope } from './service/list-envelope.js'
export { startPeriodic } from './periodic.js'
// A named lease in `svc_leases`, for background work one replica should run at a time.
export { Lease } from './service/event-log/lease.js'
export { requestContext, identityContext } from './http/request-context.js'
// Auth helpers for hosts and the CLI (offline minting, duration parsing, user/client admin).
export {
  parseDuration,
  signAccessToken,
  UserStore,
  ApiClientStore,
  normalizeEmail,
  DEFAULT_REFRESH_TOKEN_TTL_SECONDS
} from './auth/index.js'
export type { AccessClaims, PublicUser } from './auth/index.js'
