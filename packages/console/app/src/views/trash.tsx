// Deleted records of a schema: the list with tombstones included, narrowed to those with a
// `deletedAt` (a date range matches tombstones only), most recently deleted first. One query per
// page, exactly what a typed-client user would send for "my trash".
import { useState } from 'preact/hooks'
import { Link } from 'wouter-preact'
import type { RawListQuery } from '@svc/client'
import { useConsole, useSchema } from '../lib/context.js'
import { defaultColumns, humanize } from '../lib/fields.js'
import { useAsync } from '../lib/use-async.js'
import { DataTable } from '../components/data-table.js'
import { ErrorNotice, Loading } from '../components/notice.js'
import { Pager } from '../components/pager.js'
import { UnknownSchema } from './resource-table.js'

const PER_PAGE = 50

type Position = { page: number } | { cursor: string }

export function trashQuery (at: Position): RawListQuery {
  return {
    includeDeleted: true,
    filter: { deletedAt: { $gte: '1970-01-01T00:00:00.000Z' } },
    sort: 'deletedAt:desc',
    perPage: PER_PAGE,
    ...at
  }
}

export function Trash ({ path }: { path: string }): preact.JSX.Element {
  const found = useSchema(path)
  const { identity } = useConsole()
  const [at, setAt] = useState<Position>({ page: 1 })
  const [error, setError] = useState<unknown>(null)
  const soft = found?.schema.softDelete === true
  const list = useAsync(async () => (soft ? await found!.resource.list(trashQuery(at)) : undefined), [path, at])
  if (found === null) return <UnknownSchema path={path} />
  const { schema, resource } = found
  if (!soft) {
    return (
      <>
        <h1>{humanize(path)}: no trash</h1>
        <p>This schema deletes for good (soft delete is off).</p>
      </>
    )
  }
  return (
    <>
      <p class='crumbs'>
        <Link href={`/data/${path}`}>{humanize(path)}</Link> › <span>Trash</span>
      </p>
      <h1>Deleted {humanize(path).toLowerCase()}</h1>
      <ErrorNotice error={error ?? list.error} />
      {list.data === undefined && list.loading && <Loading label='Loading deleted records' />}
      {list.data !== undefined && (
        <div aria-busy={list.loading}>
          {list.data.results.length === 0
            ? (
              <p class='empty'>No deleted record.</p>
              )
            : (
              <DataTable
                schema={schema}
                rows={list.data.results}
                columns={defaultColumns(schema, identity.roles)}
                include={[]}
                sortable={new Set()}
                sort={undefined}
                onSort={() => {}}
                caption={`Deleted ${path}, most recent first`}
                onRestore={(id) => {
                  setError(null)
                  resource.restore!(id).then(list.reload, setError)
                }}
              />
              )}
          <Pager
            page={list.data}
            label={`Deleted ${path} pages`}
            onPage={(page) => {
              setAt({ page })
            }}
            onCursor={(cursor) => {
              setAt({ cursor })
            }}
          />
        </div>
      )}
    </>
  )
}
