import { listParams, paramsOf, type RawListQuery } from './query.js'
import type { Transport } from './transport.js'
import type { CallOptions, CreateOptions, GetOptions, PageOptions, UploadOptions } from './types.js'
import { subscribeEvents, type RecordEvent, type SubscribeOptions } from './events.js'

/** What a generated client knows about one schema; the methods it builds follow from it. */
export interface ResourceDescriptor {
  version: string
  path: string
  softDelete: boolean
  audit: boolean
  search: boolean
  relations: readonly string[]
  files: readonly string[]
  aggregations: readonly string[]
  stateFields: readonly string[]
  /** The realtime stream route (`/api/v1/_events`) when the service serves one: `subscribe` exists. */
  events?: string
}

/** `contract` → `Contract`: the suffix of `uploadContract`, `fetchContractUrl`, `transitionApproval`. */
export function capitalize (name: string): string {
  return name.charAt(0).toUpperCase() + name.slice(1)
}

/** The method names a descriptor yields (the generator checks them for collisions). */
export function methodNames (d: ResourceDescriptor): string[] {
  return [
    'list',
    'get',
    'create',
    'update',
    'bulkUpdate',
    'delete',
    'aggregations',
    ...(d.softDelete ? ['restore'] : []),
    ...(d.audit ? ['history'] : []),
    ...(d.search ? ['search'] : []),
    ...d.relations,
    ...d.files.flatMap((f) => [`upload${capitalize(f)}`, `fetch${capitalize(f)}Url`, `delete${capitalize(f)}`]),
    ...d.stateFields.map((s) => `transition${capitalize(s)}`),
    ...(d.events !== undefined ? ['subscribe'] : [])
  ]
}

type Fn = (...args: any[]) => Promise<unknown>

function idOf (recordOrId: unknown): string {
  const id = typeof recordOrId === 'string' ? recordOrId : (recordOrId as { _id?: unknown } | null)?._id
  if (typeof id !== 'string' || id === '') {
    throw new TypeError('@svc/client: expected a record id or a record with `_id`')
  }
  return id
}

function listQuery (query: RawListQuery & CallOptions = {}): RawListQuery {
  const { signal: _signal, ...rest } = query
  return rest
}

/**
 * Builds the methods of one resource over the REST routes. The generated interface types them;
 * this object is what runs, and it has only the methods the descriptor allows.
 */
export function createResource (http: Transport, d: ResourceDescriptor): Record<string, unknown> {
  const base = `/api/${d.version}/${d.path}`
  const one = (id: string): string => `${base}/${encodeURIComponent(id)}`
  const get = async (id: string, opts: GetOptions<string> = {}): Promise<Record<string, unknown>> =>
    await http.request({
      method: 'GET',
      path: one(id),
      query: listParams({
        ...(opts.include !== undefined ? { include: opts.include } : {}),
        ...(opts.includeDeleted !== undefined ? { includeDeleted: opts.includeDeleted } : {})
      }),
      signal: opts.signal
    })
  const list = async (query: RawListQuery & CallOptions = {}): Promise<unknown> =>
    await http.request({ method: 'GET', path: base, query: listParams(listQuery(query)), signal: query.signal })

  const methods: Record<string, unknown> = {
    list,
    get,
    create: async (input: unknown, opts: CreateOptions = {}) => {
      // One key for every attempt of this call: that is what makes its retries safe.
      const key = opts.idempotencyKey === true ? globalThis.crypto.randomUUID() : opts.idempotencyKey
      return await http.request({
        method: 'POST',
        path: base,
        json: input,
        signal: opts.signal,
        ...(key !== undefined ? { idempotencyKey: key } : {})
      })
    },
    update: async (id: string, patch: unknown, opts: CallOptions = {}) =>
      await http.request({ method: 'PUT', path: one(id), json: patch, signal: opts.signal }),
    bulkUpdate: async (filter: unknown, record: unknown, opts: CallOptions = {}) =>
      await http.request({ method: 'PUT', path: base, json: { filter, record }, signal: opts.signal }),
    delete: async (id: string, opts: CallOptions = {}) =>
      await http.request({ method: 'DELETE', path: one(id), signal: opts.signal }),
    aggregations: Object.fromEntries(
      d.aggregations.map((name): [string, Fn] => [
        name,
        async (params?: Record<string, unknown>, opts: CallOptions = {}) =>
          await http.request({
            method: 'GET',
            path: `${base}/aggregations/${encodeURIComponent(name)}`,
            query: paramsOf(params),
            signal: opts.signal
          })
      ])
    )
  }
  if (d.softDelete) {
    methods.restore = async (id: string, opts: CallOptions = {}) =>
      await http.request({ method: 'POST', path: `${one(id)}/restore`, signal: opts.signal })
  }
  if (d.audit) {
    methods.history = async (id: string, opts: PageOptions = {}) =>
      await http.request({
        method: 'GET',
        path: `${one(id)}/history`,
        query: listParams({
          ...(opts.page !== undefined ? { page: opts.page } : {}),
          ...(opts.perPage !== undefined ? { perPage: opts.perPage } : {})
        }),
        signal: opts.signal
      })
  }
  if (d.search) {
    methods.search = async (q: string, query: RawListQuery & CallOptions = {}) => await list({ ...query, q })
  }
  for (const rel of d.relations) {
    // REST has no relation routes: the related record rides on `__include` of the owner.
    methods[rel] = async (id: string, opts: Omit<GetOptions<string>, 'include'> = {}) =>
      (await get(id, { ...opts, include: [rel] }))[rel]
  }
  for (const field of d.files) {
    const name = capitalize(field)
    const at = (id: string): string => `${one(id)}/${encodeURIComponent(field)}`
    methods[`upload${name}`] = async (id: string, blob: Blob, opts: UploadOptions = {}) => {
      const form = new FormData()
      const filename =
        opts.filename ??
        (typeof (blob as File).name === 'string' && (blob as File).name !== '' ? (blob as File).name : field)
      form.set('file', blob, filename)
      return await http.request({ method: 'POST', path: at(id), form, signal: opts.signal })
    }
    methods[`fetch${name}Url`] = async (id: string, opts: CallOptions = {}) =>
      await http.request({ method: 'GET', path: at(id), signal: opts.signal })
    methods[`delete${name}`] = async (id: string, opts: CallOptions = {}) =>
      await http.request({ method: 'DELETE', path: at(id), signal: opts.signal })
  }
  for (const field of d.stateFields) {
    methods[`transition${capitalize(field)}`] = async (recordOrId: unknown, to: string, opts: CallOptions = {}) =>
      await http.request({ method: 'PUT', path: one(idOf(recordOrId)), json: { [field]: to }, signal: opts.signal })
  }
  const stream = d.events
  if (stream !== undefined) {
    methods.subscribe = (handler: (event: RecordEvent) => unknown, opts: SubscribeOptions = {}) =>
      subscribeEvents(http, { stream, path: d.path }, handler, opts)
  }
  return methods
}
