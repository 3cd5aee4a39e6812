// The console's one client: @svc/client's runtime (the transport a generated client runs on),
// with one resource per schema of `_describe`, built at run time instead of generated. Every
// request the console makes goes through it.
import {
  createBaseClient,
  createResource,
  type EventSubscription,
  type RawListQuery,
  type RecordEvent,
  type SubscribeOptions
} from '@svc/client'
import { descriptorOf } from '@svc/client/generate'
import type { Describe, Schema } from './describe.js'
import { ConsoleTokenStore } from './session.js'

export const tokens = new ConsoleTokenStore()
export const client = createBaseClient({ baseUrl: location.origin, tokens, retries: 1 }, {})
export const http = client.http

export interface ListPage<R = Rec> {
  results: R[]
  totalResults: number | null
  page: number
  perPage: number
  totalPages: number | null
  nextPage: number | null
  prevPage: number | null
  nextCursor?: string | null
}

export type Rec = Record<string, unknown> & { _id: string }

/** The generic face of a generated resource client (its methods exist as the schema allows). */
export interface Resource {
  list: (q: RawListQuery) => Promise<ListPage>
  get: (id: string, o?: { include?: string[]; includeDeleted?: boolean }) => Promise<Rec>
  create: (input: Record<string, unknown>, o?: { idempotencyKey?: string | true }) => Promise<Rec>
  update: (id: string, patch: Record<string, unknown>) => Promise<Rec>
  delete: (id: string) => Promise<Rec>
  restore?: (id: string) => Promise<Rec>
  history?: (id: string, o?: { page?: number; perPage?: number }) => Promise<ListPage<HistoryRow>>
  /** Present when `_describe` lists the realtime feed for this schema. */
  subscribe?: (handler: (event: RecordEvent) => unknown, options?: SubscribeOptions) => EventSubscription
  aggregations: Record<
    string,
    (params: Record<string, unknown>) => Promise<{ results: Array<Record<string, unknown>> }>
  >
  [method: string]: unknown
}

export interface HistoryRow {
  _id: string
  action: string
  recordId: string
  actor?: { kind?: string; userId?: string; email?: string; roles?: string[] }
  diff?: Record<string, { from: unknown; to: unknown }>
  before?: Record<string, unknown> | null
  after?: Record<string, unknown> | null
  at: string
}

export interface FileMeta {
  key: string
  size: number
  contentType: string
  originalName: string
  uploadedAt: string
  url?: string
}

export async function fetchDescribe (): Promise<Describe> {
  // Public by default (spec); a server that puts auth in front of it gets the bearer too.
  return await http.request<Describe>({ method: 'GET', path: '/_describe' })
}

export function resourcesOf (describe: Describe): Map<string, Resource> {
  const out = new Map<string, Resource>()
  for (const s of describe.schemas) {
    out.set(s.path, createResource(http, descriptorOf(s as never)) as unknown as Resource)
  }
  return out
}

/** `uploadAvatar`, `fetchAvatarUrl`, `deleteAvatar`, `transitionApproval`: the generated method names. */
export function method (name: string, field: string, suffix = ''): string {
  return `${name}${field.charAt(0).toUpperCase()}${field.slice(1)}${suffix}`
}

export type { Schema }
