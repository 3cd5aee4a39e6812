// Deleted records of a schema. The list API filters tombstones only in or out (`__includeDeleted`),
// not "deleted only", so this walks the list with tombstones included, most recently changed
// first (a delete stamps `updatedAt`), keeping the deleted ones: a bounded scan per click.
import { useEffect, useState } from 'preact/hooks'
import { Link } from 'wouter-preact'
import type { Rec } from '../lib/api.js'
import { useConsole, useSchema } from '../lib/context.js'
import { defaultColumns, humanize } from '../lib/fields.js'
import { DataTable } from '../components/data-table.js'
import { ErrorNotice, Loading } from '../components/notice.js'
import { UnknownSchema } from './resource-table.js'

const PER_REQUEST = 200
const REQUESTS_PER_SCAN = 5

interface Scan { found: Rec[], scanned: number, total: number, nextPage: number | null }

export function Trash ({ path }: { path: string }): preact.JSX.Element {
  const found = useSchema(path)
  const { identity } = useConsole()
  const [scan, setScan] = useState<Scan>({ found: [], scanned: 0, total: 0, nextPage: 1 })
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<unknown>(null)
  const more = async (from: Scan): Promise<void> => {
    setBusy(true)
    setError(null)
    let s = from
    try {
      for (let i = 0; i < REQUESTS_PER_SCAN && s.nextPage !== null; i++) {
        const page = await found!.resource.list({ includeDeleted: true, sort: 'updatedAt:desc', perPage: PER_REQUEST, page: s.nextPage })
        s = { found: [...s.found, ...page.results.filter((r) => r.deletedAt != null)], scanned: s.scanned + page.results.length, total: page.totalResults ?? s.total, nextPage: page.nextPage }
      }
      setScan(s)
    } catch (err) {
      setError(err)
    } finally {
      setBusy(false)
    }
  }
  useEffect(() => { if (found?.schema.softDelete === true) void more({ found: [], scanned: 0, total: 0, nextPage: 1 }) }, [path])
  if (found === null) return <UnknownSchema path={path} />
  const { schema, resource } = found
  if (!schema.softDelete) return <><h1>{humanize(path)}: no trash</h1><p>This schema deletes for good (soft delete is off).</p></>
  return (
    <>
      <p class='crumbs'><Link href={`/data/${path}`}>{humanize(path)}</Link> › <span>Trash</span></p>
      <h1>Deleted {humanize(path).toLowerCase()}</h1>
      <ErrorNotice error={error} />
      {busy && <Loading label='Looking for deleted records' />}
      {scan.found.length === 0 && !busy
        ? <p class='empty'>No deleted record{scan.nextPage === null ? '' : ' so far'}.</p>
        : (
          <DataTable schema={schema} rows={scan.found} columns={defaultColumns(schema, identity.roles)} include={[]} sortable={new Set()} sort={undefined}
            onSort={() => {}} caption={`Deleted ${path}`}
            onRestore={(id) => { resource.restore!(id).then(() => { setScan((s) => ({ ...s, found: s.found.filter((r) => r._id !== id) })) }, setError) }}
          />
          )}
      <p class='muted small' role='status'>Looked at {scan.scanned} of {scan.total} records (deleted ones included).</p>
      {scan.nextPage !== null && !busy && <button type='button' onClick={() => { void more(scan) }}>Look further</button>}
    </>
  )
}
