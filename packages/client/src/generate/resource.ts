import { capitalize, methodNames, type ResourceDescriptor } from '../runtime/resource.js'
import type { DescribedSchema } from './describe.js'
import { filterPaths, member, writable } from './fields.js'
import { byCode, key, literal, pascal, union } from './names.js'

const AGG_TYPES: Record<string, string> = { String: 'string', Number: 'number', Boolean: 'boolean', date: 'DateInput' }
const RESERVED = new Set(['http', 'auth'])

function block (head: string, lines: string[], indent = '  '): string {
  return lines.length === 0 ? `${head} {}` : `${head} {\n${lines.map((l) => `${indent}${l}`).join('\n')}\n}`
}

/** What the runtime needs about a schema, read from the routes the server actually registered. */
export function descriptorOf (s: DescribedSchema): ResourceDescriptor {
  const rest = new Set(s.endpoints.rest.map((e) => `${e.method} ${e.path}`))
  const base = `/api/${s.version}/${s.path}`
  const searchable = s.fields.some((f) => (f as { searchable?: boolean }).searchable === true)
  return {
    version: s.version,
    path: s.path,
    softDelete: rest.has(`POST ${base}/:id/restore`),
    audit: rest.has(`GET ${base}/:id/history`),
    search: searchable,
    relations: Object.keys(s.relations).sort(),
    files: s.fileFields.filter((f) => rest.has(`POST ${base}/:id/${f}`)).sort(),
    aggregations: s.aggregations.map((a) => a.name).sort(),
    stateFields: Object.keys(s.stateMachines).sort(),
    // The feed's route without the schema's own `?types=`.
    ...(s.endpoints.realtime !== undefined ? { events: s.endpoints.realtime.stream.split('?')[0] } : {})
  }
}

/** Names a method would take twice, or that the client object itself uses: refused with the schema named. */
export function checkNames (s: DescribedSchema, d: ResourceDescriptor): void {
  const seen = new Set<string>()
  for (const name of methodNames(d)) {
    if (seen.has(name)) {
      throw new Error(`@svc/client: ${s.path}: '${name}' would name two methods (rename the relation or field)`)
    }
    seen.add(name)
  }
  for (const r of d.relations) {
    if (RESERVED.has(r)) throw new Error(`@svc/client: ${s.path}: relation '${r}' clashes with the client's own '${r}'`)
  }
}

/** The types and the client interface of one schema. `known` maps schema paths to their type prefix. */
export function resourceSource (s: DescribedSchema, d: ResourceDescriptor, known: Map<string, string>): string {
  const T = pascal(s.path)
  const machines = Object.entries(s.stateMachines).sort(([a], [b]) => byCode(a, b))
  const stateFields = new Set(machines.map(([f]) => f))
  const fields = s.fields.filter((f) => !stateFields.has(f.name))
  const out: string[] = [`// ---- ${s.path} (${s.version}) ----`]

  for (const [field, sm] of machines) {
    const N = `${T}${capitalize(field)}`
    const aclRead = s.fields.find((f) => f.name === field)?.acl?.read !== undefined
    out.push(`export type ${N} = ${union(sm.states)}`)
    out.push(
      block(
        `/** Legal moves of \`${field}\`: from each state, the states it may go to. */\nexport interface ${N}Next`,
        sm.states.map((st) => `${key(st)}: ${union(sm.transitions[st] ?? [])}`)
      )
    )
    const transitions = machines.length === 1 ? `, availableTransitions${aclRead ? '?' : ''}: Array<${N}Next[S]>` : ''
    out.push(`export type ${N}State = { [S in ${N}]: { ${key(field)}${aclRead ? '?' : ''}: S${transitions} } }[${N}]`)
  }
  const multi =
    machines.length > 1
      ? [`availableTransitions?: { ${machines.map(([f]) => `${key(f)}?: Array<${T}${capitalize(f)}>`).join(', ')} }`]
      : []
  out.push(block(`export interface ${T}Fields`, [...fields.map((f) => member(f, 'read')), ...multi]))
  out.push(
    `export type ${T}Record = ${[`${T}Fields`, ...machines.map(([f]) => `${T}${capitalize(f)}State`)].join(' & ')}`
  )
  const initial = machines.map(([f, sm]) => `${key(f)}?: ${literal(sm.initial)}`)
  out.push(
    block(`export interface ${T}Create`, [...fields.filter(writable).map((f) => member(f, 'create')), ...initial])
  )
  out.push(
    block(`export interface ${T}Update`, [
      ...fields.filter(writable).map((f) => member(f, 'update')),
      ...machines.map(([f]) => `${key(f)}?: ${T}${capitalize(f)}`)
    ])
  )
  // Soft delete: the tombstone stamp filters and sorts too (a trash: `includeDeleted` with a `deletedAt` range).
  const paths: Array<[string, string]> = [
    ...(s.softDelete ? [['deletedAt', 'DateFilter'] as [string, string]] : []),
    ...filterPaths(s.fields)
  ]
  out.push(
    block(
      `export interface ${T}Filter extends SystemFilter`,
      paths.map(([p, t]) => `${key(p)}?: ${t}`)
    )
  )
  out.push(
    `export type ${T}SortKey = ${union(['_id', 'userId', 'accountId', 'createdAt', 'updatedAt', ...paths.map(([p]) => p)])}`
  )
  const rels = Object.keys(s.relations).sort()
  out.push(
    block(
      `export interface ${T}Relations`,
      rels.map((r) => {
        const rel = s.relations[r]
        const target = known.has(rel.target) ? `${known.get(rel.target)!}Record` : 'Record<string, unknown>'
        return `${key(r)}: ${rel.kind === 'hasMany' ? `${target}[]` : `${target} | null`}`
      })
    )
  )
  out.push(`export type ${T}RelationName = ${rels.length === 0 ? 'never' : `keyof ${T}Relations`}`)
  const created =
    machines.length === 0
      ? `${T}Record`
      : `${T}Record & { ${machines.map(([f, sm]) => `${key(f)}: ${literal(sm.initial)}`).join(', ')} }`
  const rec = `${T}Record`
  const page = `ListPage<WithIncluded<${rec}, ${T}Relations, K>>`
  const lq = `ListQuery<${T}Filter, ${T}SortKey, K>`
  const gen = `<const K extends ${T}RelationName = never>`
  const methods: string[] = [
    `list${gen} (query?: ${lq}): Promise<${page}>`,
    `get${gen} (id: string, options?: GetOptions<K>): Promise<WithIncluded<${rec}, ${T}Relations, K>>`,
    `create (input: ${T}Create, options?: CreateOptions): Promise<${created}>`,
    `update (id: string, patch: ${T}Update, options?: CallOptions): Promise<${rec}>`,
    `bulkUpdate (filter: ${T}Filter, record: ${T}Update, options?: CallOptions): Promise<{ numAffected: number }>`,
    `/** Soft delete: the tombstone (with \`deletedAt\`); otherwise the removed record. */\n  delete (id: string, options?: CallOptions): Promise<${rec}>`
  ]
  if (d.softDelete) methods.push(`restore (id: string, options?: CallOptions): Promise<${rec}>`)
  if (d.audit) methods.push(`history (id: string, options?: PageOptions): Promise<ListPage<HistoryEntry<${rec}>>>`)
  if (d.search) {
    methods.push(
      `/** \`q\` in MongoDB \`$text\` syntax over the searchable fields; relevance order unless \`sort\` says otherwise. */\n  search${gen} (q: string, query?: ${lq}): Promise<${page}>`
    )
  }
  for (const r of d.relations) {
    methods.push(`${key(r)} (id: string, options?: RelationOptions): Promise<${T}Relations[${literal(r)}]>`)
  }
  for (const f of d.files) {
    const F = capitalize(f)
    methods.push(`upload${F} (id: string, file: Blob, options?: UploadOptions): Promise<FileMeta>`)
    methods.push(
      `/** The file's metadata with its download \`url\` (private files: signed, valid for minutes). */\n  fetch${F}Url (id: string, options?: CallOptions): Promise<FileMetaWithUrl>`
    )
    methods.push(`delete${F} (id: string, options?: CallOptions): Promise<{ ok: true }>`)
  }
  for (const [field] of machines) {
    const N = `${T}${capitalize(field)}`
    methods.push(
      `/** Only the states legal from the record's current \`${field}\` type-check (narrow it first); an id alone accepts any state. */\n  transition${capitalize(field)}<R extends { _id: string, ${key(field)}?: ${N} }> (record: R, to: ${N}Next[NonNullable<R[${literal(field)}]>], options?: CallOptions): Promise<${rec}>`
    )
    methods.push(`transition${capitalize(field)} (id: string, to: ${N}, options?: CallOptions): Promise<${rec}>`)
  }
  const feed = s.endpoints.realtime
  if (feed !== undefined && d.events !== undefined) {
    const actions = feed.events.map((e) => e.slice(e.lastIndexOf('.') + 1))
    out.push(`export type ${T}EventType = ${union([...feed.events].sort(byCode))}`)
    out.push(`export type ${T}EventPattern = ${T}EventType | ${union([...actions.sort(byCode), `${s.path}.*`, '*'])}`)
    methods.push(
      `/** Live ${s.path} events of your scope (the realtime feed), each once and in order; reconnects with the last cursor. */\n  subscribe (handler: (event: RecordEvent<${rec}, ${T}EventType>) => Awaitable<void>, options?: SubscribeOptions<${T}EventPattern>): EventSubscription`
    )
  }
  const aggs = [...s.aggregations]
    .sort((a, b) => byCode(a.name, b.name))
    .map((a) => {
      const params = a.params.map((p) => `${key(p.name)}${p.required ? '' : '?'}: ${AGG_TYPES[p.type] ?? 'string'}`)
      const optional = a.params.every((p) => !p.required)
      const doc = a.description !== undefined ? `/** ${a.description.replace(/\*\//g, '*\\/')} */\n    ` : ''
      return `${doc}${key(a.name)} (params${optional ? '?' : ''}: ${params.length === 0 ? 'Record<string, never>' : `{ ${params.join(', ')} }`}, options?: CallOptions): Promise<{ results: Array<Record<string, unknown>> }>`
    })
  methods.push(
    aggs.length === 0 ? 'aggregations: {}' : `aggregations: {\n${aggs.map((l) => `    ${l}`).join('\n')}\n  }`
  )
  out.push(block(`export interface ${T}Client`, methods))
  return out.join('\n\n')
}

/** The descriptor as a source literal (keys in a fixed order: generated output is byte-stable). */
export function descriptorSource (d: ResourceDescriptor): string {
  const list = (xs: readonly string[]): string => `[${xs.map(literal).join(', ')}]`
  const events = d.events !== undefined ? `, events: ${literal(d.events)}` : ''
  return `{ version: ${literal(d.version)}, path: ${literal(d.path)}, softDelete: ${String(d.softDelete)}, audit: ${String(d.audit)}, search: ${String(d.search)}, relations: ${list(d.relations)}, files: ${list(d.files)}, aggregations: ${list(d.aggregations)}, stateFields: ${list(d.stateFields)}${events} }`
}
