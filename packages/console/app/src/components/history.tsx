// The record's audit rows as a readable diff: who, when, what, and each changed field's before
// and after, newest first.
import { useState } from 'preact/hooks'
import type { Resource } from '../lib/api.js'
import type { Schema } from '../lib/describe.js'
import { humanize } from '../lib/fields.js'
import { formatDate, formatValue } from '../lib/format.js'
import { useAsync } from '../lib/use-async.js'
import { ErrorNotice, Loading } from './notice.js'
import { Pager } from './pager.js'

const VERBS: Record<string, string> = {
  create: 'created',
  update: 'updated',
  delete: 'deleted',
  restore: 'restored',
  transition: 'moved'
}
const NOISE = new Set(['updatedAt', 'createdAt', '_id', 'userId', 'accountId'])

function Value ({ v }: { v: unknown }): preact.JSX.Element {
  const text = formatValue(v)
  return text === '' ? <span class='muted'>(empty)</span> : <span>{text}</span>
}

export function History ({
  resource,
  id,
  tick
}: {
  schema: Schema
  resource: Resource
  id: string
  tick: number
}): preact.JSX.Element {
  const [page, setPage] = useState(1)
  const rows = useAsync(async () => await resource.history!(id, { page, perPage: 10 }), [id, page, tick])
  return (
    <section aria-labelledby='history-title'>
      <h2 id='history-title'>History</h2>
      {rows.error !== undefined && <ErrorNotice error={rows.error} />}
      {rows.data === undefined && rows.loading && <Loading label='Loading the history' />}
      {rows.data !== undefined && (
        <>
          <ol class='history'>
            {rows.data.results.map((h) => {
              const changes = Object.entries(h.diff ?? {}).filter(([k]) => !NOISE.has(k))
              return (
                <li key={h._id}>
                  <p>
                    <strong>{h.actor?.email ?? h.actor?.userId ?? 'the system'}</strong> {VERBS[h.action] ?? h.action}{' '}
                    it{' '}
                    <time dateTime={h.at} title={h.at}>
                      {formatDate(h.at)}
                    </time>
                  </p>
                  {changes.length > 0 && (
                    <table class='diff'>
                      <caption class='visually-hidden'>Changes of {formatDate(h.at)}</caption>
                      <thead>
                        <tr>
                          <th scope='col'>Field</th>
                          <th scope='col'>Before</th>
                          <th scope='col'>After</th>
                        </tr>
                      </thead>
                      <tbody>
                        {changes.map(([field, d]) => (
                          <tr key={field}>
                            <th scope='row'>{humanize(field)}</th>
                            <td class='before'>
                              <Value v={d.from} />
                            </td>
                            <td class='after'>
                              <Value v={d.to} />
                            </td>
                          </tr>
                        ))}
                      </tbody>
                    </table>
                  )}
                </li>
              )
            })}
          </ol>
          <Pager page={rows.data} label='History pages' onPage={setPage} />
        </>
      )}
    </section>
  )
}
