// A schema's records: search, field filters, sort, relations to include, deleted records, paging.
import { useMemo, useState } from 'preact/hooks'
import { Link, useLocation, useSearch } from 'wouter-preact'
import type { RawListQuery } from '@svc/client'
import { useConsole, useSchema } from '../lib/context.js'
import { defaultColumns, filterableFields, humanize } from '../lib/fields.js'
import { queryFromSearch, searchFromQuery } from '../lib/list-query.js'
import { useAsync } from '../lib/use-async.js'
import { liveRows, useLiveTable } from '../lib/live.js'
import { DataTable } from '../components/data-table.js'
import { FilterBar } from '../components/filter-bar.js'
import { ErrorNotice, Loading } from '../components/notice.js'
import { Pager } from '../components/pager.js'
import { LiveBar, LiveBadge } from '../components/live-bar.js'

const PAGE_SIZES = [10, 20, 50, 100]

export function UnknownSchema ({ path }: { path: string }): preact.JSX.Element {
  return (
    <>
      <h1>Unknown schema</h1>
      <p>
        The service has no schema <code>{path}</code>. <Link href='/'>See the list</Link>.
      </p>
    </>
  )
}

export function ResourceTable ({ path }: { path: string }): preact.JSX.Element {
  const found = useSchema(path)
  const { identity } = useConsole()
  const search = useSearch()
  const [, navigate] = useLocation()
  const query = useMemo(() => queryFromSearch(search), [search])
  const live = useLiveTable(path, found?.resource)
  const list = useAsync(async () => {
    if (found === null) throw new Error(`unknown schema ${path}`)
    live.forget()
    return await found.resource.list(query)
  }, [path, search])
  const [actionError, setActionError] = useState<unknown>(null)
  if (found === null) return <UnknownSchema path={path} />
  const { schema, resource } = found
  const roles = identity.roles
  const fields = filterableFields(schema, roles, { deleted: query.includeDeleted === true })
  const searchable = schema.fields.some((f) => f.searchable === true)
  const relations = Object.keys(schema.relations)
  const include: string[] = [...(query.include ?? [])]
  const go = (next: RawListQuery): void => {
    navigate(`/data/${path}${searchFromQuery(next)}`)
  }
  // Any change of the query starts again from the first page (a cursor belongs to one query).
  const set = (patch: Partial<RawListQuery>): void => {
    go({ ...query, page: undefined, cursor: undefined, ...patch })
  }
  const filterCount = Object.keys(query.filter ?? {}).length

  return (
    <>
      <div class='title-row'>
        <h1>{humanize(path)}</h1>
        <div class='actions'>
          <LiveBadge live={live} />
          <Link href={`/data/${path}/new`} class='button primary'>
            New record
          </Link>
          {schema.softDelete && (
            <Link href={`/data/${path}/trash`} class='button'>
              Trash
            </Link>
          )}
        </div>
      </div>
      {schema.aggregations.length > 0 && (
        <p class='small'>
          Aggregations:{' '}
          {schema.aggregations.map((a, i) => (
            <span key={a.name}>
              {i > 0 && ' · '}
              <Link href={`/data/${path}/aggregations/${a.name}`}>{humanize(a.name)}</Link>
            </span>
          ))}
        </p>
      )}
      <div class='toolbar'>
        {searchable && (
          <form
            role='search'
            class='search'
            onSubmit={(e) => {
              e.preventDefault()
              const v = (e.currentTarget.elements.namedItem('q') as HTMLInputElement).value.trim()
              set({ q: v === '' ? undefined : v })
            }}
          >
            <label for='q' class='visually-hidden'>
              Search {humanize(path).toLowerCase()}
            </label>
            <input
              id='q'
              name='q'
              type='search'
              placeholder='Search…'
              defaultValue={query.q ?? ''}
              key={query.q ?? ''}
            />
            <button type='submit'>Search</button>
          </form>
        )}
        <details open={filterCount > 0}>
          <summary>Filters{filterCount > 0 ? ` (${filterCount})` : ''}</summary>
          <FilterBar
            key={search}
            fields={fields}
            filter={query.filter ?? {}}
            onApply={(filter) => {
              set({ filter })
            }}
          />
        </details>
        <details>
          <summary>View</summary>
          <fieldset class='options'>
            <legend class='visually-hidden'>View options</legend>
            {relations.map((rel) => (
              <label key={rel} class='check'>
                <input
                  type='checkbox'
                  checked={include.includes(rel)}
                  onChange={(e) => {
                    set({
                      include: e.currentTarget.checked ? [...include, rel] : include.filter((r: string) => r !== rel)
                    })
                  }}
                />{' '}
                Show {humanize(rel).toLowerCase()}
              </label>
            ))}
            {schema.softDelete && (
              <label class='check'>
                <input
                  type='checkbox'
                  checked={query.includeDeleted === true}
                  onChange={(e) => {
                    set({ includeDeleted: e.currentTarget.checked ? true : undefined })
                  }}
                />{' '}
                Show deleted records
              </label>
            )}
            <label for='per-page'>Per page</label>
            <select
              id='per-page'
              value={String(query.perPage ?? 20)}
              onChange={(e) => {
                set({ perPage: Number(e.currentTarget.value) })
              }}
            >
              {PAGE_SIZES.map((n) => (
                <option key={n} value={n}>
                  {n}
                </option>
              ))}
            </select>
          </fieldset>
        </details>
      </div>
      <ErrorNotice error={actionError} />
      {list.error !== undefined && <ErrorNotice error={list.error} />}
      {list.data === undefined && list.loading && <Loading label='Loading records' />}
      {list.data !== undefined && (
        <div aria-busy={list.loading}>
          <LiveBar live={live} shown={list.data.results} onRefresh={() => list.reload()} />
          {list.data.results.length === 0
            ? (
              <p class='empty'>
                No records{filterCount > 0 || query.q !== undefined ? ' match' : ' yet'}.{' '}
                <Link href={`/data/${path}/new`}>Create one</Link>.
              </p>
              )
            : (
              <DataTable
                schema={schema}
                {...liveRows(list.data.results, live.changes)}
                columns={defaultColumns(schema, roles)}
                include={include}
                sortable={new Set([...fields.map((f) => f.path), 'createdAt', 'updatedAt'])}
                sort={query.sort as string | undefined}
                onSort={(sort) => {
                  set({ sort })
                }}
                caption={`${humanize(path)}, page ${list.data.page}`}
                onRestore={
                resource.restore === undefined
                  ? undefined
                  : (id) => {
                      setActionError(null)
                      resource.restore!(id).then(list.reload, setActionError)
                    }
              }
              />
              )}
          <Pager
            page={list.data}
            label={`${humanize(path)} pages`}
            onPage={(page) => {
              go({ ...query, cursor: undefined, page })
            }}
            onCursor={(cursor) => {
              go({ ...query, page: undefined, cursor })
            }}
          />
        </div>
      )}
    </>
  )
}
