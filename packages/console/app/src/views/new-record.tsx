import { Link, useLocation } from 'wouter-preact'
import { useSchema } from '../lib/context.js'
import { humanize } from '../lib/fields.js'
import { RecordForm } from '../components/record-form.js'
import { UnknownSchema } from './resource-table.js'

export function NewRecord ({ path }: { path: string }): preact.JSX.Element {
  const found = useSchema(path)
  const [, navigate] = useLocation()
  if (found === null) return <UnknownSchema path={path} />
  return (
    <>
      <p class='crumbs'>
        <Link href={`/data/${path}`}>{humanize(path)}</Link> › <span>New</span>
      </p>
      <h1>New {humanize(path).toLowerCase()} record</h1>
      <p class='muted small'>Fields marked * are required. Ownership, ids and dates are stamped by the service.</p>
      <RecordForm
        schema={found.schema}
        mode='create'
        record={null}
        onSave={async (input) => {
          // One key per submission: a retried create answers the first record, never a second one.
          const created = await found.resource.create(input, { idempotencyKey: true })
          navigate(`/data/${path}/${created._id}`)
        }}
      />
    </>
  )
}
