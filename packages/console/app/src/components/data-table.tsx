// One page of records: the label column links to the record, headers sort, included relations
// link to the related records, and tombstones (with "show deleted") carry a restore button.
import { Link } from 'wouter-preact'
import type { Rec } from '../lib/api.js'
import type { Schema } from '../lib/describe.js'
import { humanize, labelField, recordLabel } from '../lib/fields.js'
import { formatValue } from '../lib/format.js'
import { useConsole } from '../lib/context.js'

interface Props {
  schema: Schema
  rows: Rec[]
  columns: string[]
  sortable: Set<string>
  sort: string | undefined
  include: string[]
  onSort: (sort: string) => void
  onRestore?: (id: string) => void
  caption: string
  /** Rows the realtime feed changed since the list was read: `updated`, `restored`, `deleted`. */
  marks?: Map<string, string>
}

function Cell ({ value }: { value: unknown }): preact.JSX.Element {
  const text = formatValue(value)
  if (text === '') {
    return (
      <span class='muted' aria-label='empty'>
        —
      </span>
    )
  }
  return <span title={typeof value === 'string' ? value : undefined}>{text}</span>
}

function RelationCell ({ schema, rel, row }: { schema: Schema; rel: string; row: Rec }): preact.JSX.Element {
  const { describe, identity } = useConsole()
  const def = schema.relations[rel]
  const target = describe.schemas.find((s) => s.path === def.target)
  const value = row[rel]
  if (def.kind === 'hasMany') {
    const n = Array.isArray(value) ? value.length : 0
    return (
      <Link href={`/data/${def.target}?${new URLSearchParams({ [def.fk]: row._id }).toString()}`}>
        {n} {humanize(def.target).toLowerCase()}
      </Link>
    )
  }
  if (value === null || typeof value !== 'object' || target === undefined) {
    return (
      <span class='muted' aria-label='none'>
        —
      </span>
    )
  }
  const r = value as Rec
  return <Link href={`/data/${def.target}/${r._id}`}>{recordLabel(target, identity.roles, r)}</Link>
}

export function DataTable ({
  schema,
  rows,
  columns,
  sortable,
  sort,
  include,
  onSort,
  onRestore,
  caption,
  marks
}: Props): preact.JSX.Element {
  const { identity } = useConsole()
  const label = labelField(schema, identity.roles)
  const [sortField, sortDir] = (sort ?? '').split(',')[0].split(':')
  const anyDeleted = rows.some((r) => r.deletedAt != null)
  const header = (name: string): preact.JSX.Element => {
    const active = sortField === name
    const dir = active ? (sortDir === 'desc' ? 'descending' : 'ascending') : undefined
    if (!sortable.has(name)) {
      return (
        <th scope='col' key={name}>
          {humanize(name)}
        </th>
      )
    }
    return (
      <th scope='col' key={name} aria-sort={dir ?? 'none'}>
        <button
          type='button'
          class='sort'
          onClick={() => {
            onSort(`${name}:${active && sortDir !== 'desc' ? 'desc' : 'asc'}`)
          }}
        >
          {humanize(name)} <span aria-hidden='true'>{active ? (dir === 'descending' ? '▼' : '▲') : '↕'}</span>
        </button>
      </th>
    )
  }
  return (
    <div class='table-wrap' role='region' aria-label={caption} tabIndex={0}>
      <table>
        <caption class='visually-hidden'>{caption}</caption>
        <thead>
          <tr>
            {header(label)}
            {columns.map(header)}
            {include.map((rel) => (
              <th scope='col' key={`rel-${rel}`}>
                {humanize(rel)}
              </th>
            ))}
            {anyDeleted && <th scope='col'>Deleted</th>}
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r._id} class={r.deletedAt != null || marks?.get(r._id) === 'deleted' ? 'deleted' : undefined}>
              <th scope='row'>
                <Link href={`/data/${schema.path}/${r._id}`}>{recordLabel(schema, identity.roles, r)}</Link>
                {marks?.has(r._id) === true && (
                  <>
                    {' '}
                    <span class='badge live'>{marks.get(r._id)} just now</span>
                  </>
                )}
              </th>
              {columns.map((c) => (
                <td key={c}>
                  <Cell value={r[c]} />
                </td>
              ))}
              {include.map((rel) => (
                <td key={`rel-${rel}`}>
                  <RelationCell schema={schema} rel={rel} row={r} />
                </td>
              ))}
              {anyDeleted && (
                <td>
                  {r.deletedAt != null && (
                    <>
                      <span class='badge warn'>{formatValue(r.deletedAt)}</span>{' '}
                      {onRestore !== undefined && (
                        <button
                          type='button'
                          onClick={() => {
                            onRestore(r._id)
                          }}
                          aria-label={`Restore ${recordLabel(schema, identity.roles, r)}`}
                        >
                          Restore
                        </button>
                      )}
                    </>
                  )}
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}
