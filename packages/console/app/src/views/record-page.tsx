// One record: its form, state transitions, files, related records, history, delete and restore.
import { useState } from 'preact/hooks'
import { Link, useLocation } from 'wouter-preact'
import { method, type Rec } from '../lib/api.js'
import { useConsole, useSchema } from '../lib/context.js'
import { canRead, humanize, kindOf, recordLabel } from '../lib/fields.js'
import { formatDate } from '../lib/format.js'
import { useAsync } from '../lib/use-async.js'
import { ErrorNotice, Loading } from '../components/notice.js'
import { RecordForm } from '../components/record-form.js'
import { Transitions } from '../components/transitions.js'
import { FileField } from '../components/file-field.js'
import { Related } from '../components/related.js'
import { History } from '../components/history.js'
import { UnknownSchema } from './resource-table.js'

function DeleteButton ({ onDelete, label }: { onDelete: () => void; label: string }): preact.JSX.Element {
  const [asking, setAsking] = useState(false)
  if (!asking) {
    return (
      <button
        type='button'
        class='danger'
        onClick={() => {
          setAsking(true)
        }}
      >
        Delete…
      </button>
    )
  }
  return (
    <span class='confirm' role='group' aria-label='Confirm deletion'>
      <span>Delete {label}?</span>
      <button
        type='button'
        class='danger'
        onClick={() => {
          setAsking(false)
          onDelete()
        }}
      >
        Delete record
      </button>
      <button
        type='button'
        onClick={() => {
          setAsking(false)
        }}
      >
        Cancel
      </button>
    </span>
  )
}

export function RecordPage ({ path, id }: { path: string; id: string }): preact.JSX.Element {
  const found = useSchema(path)
  const { identity } = useConsole()
  const [, navigate] = useLocation()
  const [actionError, setActionError] = useState<unknown>(null)
  const [historyTick, setHistoryTick] = useState(0)
  const include = found === null ? [] : Object.keys(found.schema.relations)
  const rec = useAsync(
    async () => await found!.resource.get(id, { include, includeDeleted: found!.schema.softDelete }),
    [path, id]
  )
  if (found === null) return <UnknownSchema path={path} />
  const { schema, resource } = found
  const record = rec.data
  const changed = (next: Rec | undefined): void => {
    setActionError(null)
    setHistoryTick((n) => n + 1)
    if (next !== undefined) rec.reload()
  }
  const act = (p: Promise<Rec>): Promise<void> =>
    p.then(changed, (err: unknown) => {
      setActionError(err)
    })

  if (record === undefined) {
    return (
      <>
        <p class='crumbs'>
          <Link href={`/data/${path}`}>{humanize(path)}</Link>
        </p>
        {rec.error !== undefined ? <ErrorNotice error={rec.error} /> : <Loading label='Loading the record' />}
      </>
    )
  }
  const label = recordLabel(schema, identity.roles, record)
  const deleted = record.deletedAt != null
  return (
    <>
      <p class='crumbs'>
        <Link href={`/data/${path}`}>{humanize(path)}</Link> › <span>{label}</span>
      </p>
      <div class='title-row'>
        <h1>{label}</h1>
        <div class='actions'>
          {deleted && resource.restore !== undefined && (
            <button
              type='button'
              class='primary'
              onClick={() => {
                void act(resource.restore!(id))
              }}
            >
              Restore
            </button>
          )}
          {!deleted && (
            <DeleteButton
              label={label}
              onDelete={() => {
                resource.delete(id).then((r) => {
                  if (schema.softDelete) changed(r)
                  else navigate(`/data/${path}`)
                }, setActionError)
              }}
            />
          )}
        </div>
      </div>
      {deleted && (
        <p class='notice warn' role='status'>
          Deleted {formatDate(record.deletedAt)}. It is hidden from lists and relations until restored.
        </p>
      )}
      <ErrorNotice error={actionError} />
      <Transitions
        schema={schema}
        record={record}
        onMove={async (field, to) => {
          await act((resource[method('transition', field)] as (r: string, to: string) => Promise<Rec>)(id, to))
        }}
      />
      <section aria-labelledby='fields-title'>
        <h2 id='fields-title'>Fields</h2>
        {deleted
          ? (
            <p class='muted'>Restore the record to edit it.</p>
            )
          : (
            <RecordForm
              key={String(record.updatedAt)}
              schema={schema}
              mode='update'
              record={record}
              onSave={async (patch) => {
                changed(await resource.update(id, patch))
              }}
            />
            )}
      </section>
      {schema.fileFields.some((f) =>
        canRead(
          schema.fields.find((x) => x.name === f)!,
          identity.roles
        )
      ) && (
        <section aria-labelledby='files-title'>
          <h2 id='files-title'>Files</h2>
          {schema.fields
            .filter((f) => kindOf(f) === 'file' && schema.fileFields.includes(f.name) && canRead(f, identity.roles))
            .map((f) => (
              <FileField
                key={f.name}
                schema={schema}
                resource={resource}
                field={f}
                record={record}
                disabled={deleted}
                onChange={() => {
                  changed(record)
                }}
              />
            ))}
        </section>
      )}
      {include.length > 0 && <Related schema={schema} record={record} />}
      {schema.audit && resource.history !== undefined && (
        <History schema={schema} resource={resource} id={id} tick={historyTick} />
      )}
      <section aria-labelledby='meta-title'>
        <h2 id='meta-title'>Record</h2>
        <dl class='meta'>
          <div>
            <dt>Id</dt>
            <dd>
              <code>{record._id}</code>
            </dd>
          </div>
          <div>
            <dt>Created</dt>
            <dd>{formatDate(record.createdAt)}</dd>
          </div>
          <div>
            <dt>Updated</dt>
            <dd>{formatDate(record.updatedAt)}</dd>
          </div>
          <div>
            <dt>Tenant</dt>
            <dd>
              <code>{String(record.userId)}</code>
            </dd>
          </div>
        </dl>
      </section>
    </>
  )
}
