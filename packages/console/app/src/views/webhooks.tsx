// The tenant's webhook subscriptions: their state at a glance, and a form to add one (its
// signing secret is shown once, as the API returns it once).
import { useState } from 'preact/hooks'
import { Link } from 'wouter-preact'
import { useConsole } from '../lib/context.js'
import { formatDate } from '../lib/format.js'
import { useAsync } from '../lib/use-async.js'
import { webhooks, type Subscription } from '../lib/webhooks.js'
import { ErrorNotice, Loading, issuesOf } from '../components/notice.js'
import { Pager } from '../components/pager.js'

export function Webhooks (): preact.JSX.Element {
  const { describe } = useConsole()
  const [page, setPage] = useState(1)
  const list = useAsync(async () => await webhooks.list(page), [page])
  const [created, setCreated] = useState<Subscription | null>(null)
  const [error, setError] = useState<unknown>(null)
  const issues = issuesOf(error)
  const patterns = [
    '*',
    ...describe.schemas.flatMap((s) => [
      `${s.path}.*`,
      `${s.path}.created`,
      `${s.path}.updated`,
      `${s.path}.deleted`,
      ...(Object.keys(s.stateMachines).length > 0 ? [`${s.path}.transitioned`] : [])
    ])
  ]
  return (
    <>
      <h1>Webhooks</h1>
      <p class='muted'>
        Your tenant's subscriptions: each receives its matching record events, signed with its secret.
      </p>
      {list.error !== undefined && <ErrorNotice error={list.error} />}
      {list.data === undefined && list.loading && <Loading label='Loading subscriptions' />}
      {list.data !== undefined &&
        (list.data.results.length === 0
          ? (
            <p class='empty'>No subscription yet.</p>
            )
          : (
            <div class='table-wrap' role='region' aria-label='Subscriptions' tabIndex={0}>
              <table>
                <caption class='visually-hidden'>Webhook subscriptions</caption>
                <thead>
                  <tr>
                    <th scope='col'>URL</th>
                    <th scope='col'>Events</th>
                    <th scope='col'>State</th>
                    <th scope='col'>Failures</th>
                    <th scope='col'>Last success</th>
                  </tr>
                </thead>
                <tbody>
                  {list.data.results.map((s) => (
                    <tr key={s._id}>
                      <th scope='row'>
                        <Link href={`/webhooks/${s._id}`}>{s.url}</Link>
                      </th>
                      <td>{s.events.join(', ')}</td>
                      <td>
                        {s.active ? <span class='badge ok'>active</span> : <span class='badge warn'>disabled</span>}
                      </td>
                      <td>{s.failureCount}</td>
                      <td>{s.lastDeliveryAt != null ? formatDate(s.lastDeliveryAt) : '—'}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            ))}
      {list.data !== undefined && list.data.totalPages !== null && list.data.totalPages > 1 && (
        <Pager page={list.data} label='Subscription pages' onPage={setPage} />
      )}
      <h2>Add a subscription</h2>
      <form
        class='webhook-form'
        id='new-webhook'
        onSubmit={(e) => {
          e.preventDefault()
          const f = e.currentTarget
          const url = (f.elements.namedItem('url') as HTMLInputElement).value.trim()
          const events = (f.elements.namedItem('events') as HTMLInputElement).value
            .split(',')
            .map((s) => s.trim())
            .filter(Boolean)
          setError(null)
          webhooks.create({ url, events }).then((s) => {
            setCreated(s)
            f.reset()
            list.reload()
          }, setError)
        }}
      >
        <label for='wh-url'>Receiver URL</label>
        <input
          id='wh-url'
          name='url'
          type='url'
          required
          placeholder='https://hooks.example.com/svc'
          aria-invalid={issues.has('url') ? 'true' : undefined}
        />
        <label for='wh-events'>
          Events{' '}
          <span class='muted small'>
            (comma-separated: <code>deals.*</code>, <code>contacts.created</code>, <code>*</code>)
          </span>
        </label>
        <input
          id='wh-events'
          name='events'
          list='event-patterns'
          required
          aria-invalid={issues.has('events') ? 'true' : undefined}
        />
        <datalist id='event-patterns'>
          {patterns.map((p) => (
            <option key={p} value={p} />
          ))}
        </datalist>
        <button type='submit' class='primary'>
          Subscribe
        </button>
      </form>
      <ErrorNotice error={error} />
      {created !== null && (
        <div class='notice ok' role='status'>
          <strong>Subscribed.</strong> Keep this signing secret now: the service never shows it again.
          <p>
            <code class='secret'>{created.secret}</code>
          </p>
          <p>
            <Link href={`/webhooks/${created._id}`}>Open the subscription</Link>
          </p>
        </div>
      )}
    </>
  )
}
