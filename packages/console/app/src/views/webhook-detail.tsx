// One subscription: re-enable (or pause), send a test event, remove, and its delivery attempts.
import { useState } from 'preact/hooks'
import { Link, useLocation } from 'wouter-preact'
import { formatDate } from '../lib/format.js'
import { useAsync } from '../lib/use-async.js'
import { webhooks } from '../lib/webhooks.js'
import { ErrorNotice, Loading, Success } from '../components/notice.js'
import { Pager } from '../components/pager.js'

const badgeOf = (status: string): string => (status === 'delivered' || status === 'success' ? 'ok' : 'warn')

export function WebhookDetail ({ id }: { id: string }): preact.JSX.Element {
  const sub = useAsync(async () => await webhooks.get(id), [id])
  const [page, setPage] = useState(1)
  const deliveries = useAsync(async () => await webhooks.deliveries(id, page), [id, page])
  const [error, setError] = useState<unknown>(null)
  const [note, setNote] = useState<string | null>(null)
  const [, navigate] = useLocation()
  const act = (p: Promise<unknown>, done: string): void => {
    setError(null)
    setNote(null)
    p.then(() => {
      setNote(done)
      sub.reload()
      deliveries.reload()
    }, setError)
  }
  const s = sub.data
  return (
    <>
      <p class='crumbs'>
        <Link href='/webhooks'>Webhooks</Link>
      </p>
      {s === undefined
        ? (
            sub.error !== undefined
              ? (
                <ErrorNotice error={sub.error} />
                )
              : (
                <Loading label='Loading the subscription' />
                )
          )
        : (
          <>
            <h1 class='wrap'>{s.url}</h1>
            <dl class='meta'>
              <div>
                <dt>Events</dt>
                <dd>{s.events.join(', ')}</dd>
              </div>
              <div>
                <dt>State</dt>
                <dd>
                  {s.active
                    ? (
                      <span class='badge ok'>active</span>
                      )
                    : (
                      <span class='badge warn'>disabled after repeated failures or by hand</span>
                      )}
                </dd>
              </div>
              <div>
                <dt>Consecutive failures</dt>
                <dd>{s.failureCount}</dd>
              </div>
              <div>
                <dt>Last success</dt>
                <dd>{s.lastDeliveryAt != null ? formatDate(s.lastDeliveryAt) : '—'}</dd>
              </div>
            </dl>
            <div class='actions'>
              {!s.active && (
                <button
                  type='button'
                  class='primary'
                  onClick={() => {
                    act(
                      webhooks.update(id, { active: true }),
                      'Re-enabled: deliveries resume and the failure count is reset.'
                    )
                  }}
                >
                  Re-enable
                </button>
              )}
              {s.active && (
                <button
                  type='button'
                  onClick={() => {
                    act(webhooks.update(id, { active: false }), 'Paused.')
                  }}
                >
                  Pause
                </button>
              )}
              <button
                type='button'
                onClick={() => {
                  act(webhooks.test(id), 'A signed webhook.test event is on its way.')
                }}
              >
                Send a test event
              </button>
              <button
                type='button'
                class='danger'
                onClick={() => {
                  webhooks.remove(id).then(() => {
                    navigate('/webhooks')
                  }, setError)
                }}
              >
                Delete subscription
              </button>
            </div>
          </>
          )}
      {note !== null && <Success>{note}</Success>}
      <ErrorNotice error={error} />
      <div class='title-row'>
        <h2>Recent deliveries</h2>
        <button type='button' onClick={() => deliveries.reload()}>
          Refresh
        </button>
      </div>
      {deliveries.error !== undefined && <ErrorNotice error={deliveries.error} />}
      {deliveries.data !== undefined &&
        (deliveries.data.results.length === 0
          ? (
            <p class='empty'>No delivery yet.</p>
            )
          : (
            <>
              <div class='table-wrap' role='region' aria-label='Deliveries' tabIndex={0}>
                <table>
                  <caption class='visually-hidden'>Delivery attempts, newest first</caption>
                  <thead>
                    <tr>
                      <th scope='col'>When</th>
                      <th scope='col'>Event</th>
                      <th scope='col'>Attempt</th>
                      <th scope='col'>Result</th>
                      <th scope='col'>Answer</th>
                      <th scope='col'>Time</th>
                    </tr>
                  </thead>
                  <tbody>
                    {deliveries.data.results.map((d) => (
                      <tr key={d._id}>
                        <td>{formatDate(d.at)}</td>
                        <td>{d.event}</td>
                        <td>{d.attempt}</td>
                        <td>
                          <span class={`badge ${badgeOf(d.status)}`}>{d.status}</span>
                          {d.error != null && <span class='small'> {d.error}</span>}
                        </td>
                        <td>{d.responseCode ?? '—'}</td>
                        <td>{d.durationMs != null ? `${d.durationMs} ms` : '—'}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              <Pager page={deliveries.data} label='Delivery pages' onPage={setPage} />
            </>
            ))}
    </>
  )
}
