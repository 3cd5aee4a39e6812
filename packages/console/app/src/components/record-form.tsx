// The record form generated from the schema. The service is the judge: the form sends the
// change and shows a VALIDATION envelope's issues next to their fields (and in a summary).
import { useState } from 'preact/hooks'
import type { Rec } from '../lib/api.js'
import type { Schema } from '../lib/describe.js'
import { editableFields, initialDraft, JsonError, payloadOf, setPath, type Mode } from '../lib/draft.js'
import { canRead, humanize, kindOf, stateFields } from '../lib/fields.js'
import { formatValue } from '../lib/format.js'
import { useConsole } from '../lib/context.js'
import { FieldInput, idOf } from './field-input.js'
import { ErrorNotice, Success, issuesOf } from './notice.js'

interface Props {
  schema: Schema
  mode: Mode
  record: Rec | null
  onSave: (payload: Record<string, unknown>) => Promise<unknown>
}

export function RecordForm ({ schema, mode, record, onSave }: Props): preact.JSX.Element {
  const { identity } = useConsole()
  const states = stateFields(schema)
  const fields = editableFields(schema.fields, states, identity.roles, mode)
  const editable = new Set(fields.map((f) => f.name))
  // Readable but not writable here: computed fields and fields whose update ACL excludes the role.
  const readOnly =
    mode === 'update'
      ? schema.fields.filter(
        (f) =>
          f.stamped !== true &&
            !editable.has(f.name) &&
            !states.has(f.name) &&
            kindOf(f) !== 'file' &&
            canRead(f, identity.roles)
      )
      : []
  const [draft, setDraft] = useState<Record<string, unknown>>(() =>
    record === null ? initialDraft(fields) : { ...record }
  )
  const [error, setError] = useState<unknown>(null)
  const [saved, setSaved] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)
  const errors = error instanceof JsonError ? new Map([[error.field, 'not valid JSON']]) : issuesOf(error)

  const submit = (e: Event): void => {
    e.preventDefault()
    setSaved(null)
    let payload: Record<string, unknown>
    try {
      payload = payloadOf(fields, draft, record)
    } catch (err) {
      setError(err)
      return
    }
    if (mode === 'update' && Object.keys(payload).length === 0) {
      setError(null)
      setSaved('Nothing changed.')
      return
    }
    setBusy(true)
    onSave(payload)
      .then(() => {
        setError(null)
        setSaved(mode === 'create' ? 'Created.' : 'Saved.')
      }, setError)
      .finally(() => {
        setBusy(false)
      })
  }

  return (
    <form
      class='record-form'
      onSubmit={submit}
      noValidate
      aria-label={mode === 'create' ? 'New record' : 'Edit record'}
    >
      {errors.size > 0 && (
        <div class='notice error' role='alert' aria-labelledby='error-summary-title'>
          <strong id='error-summary-title'>
            {error instanceof JsonError ? 'Please fix the JSON' : 'The service refused these values'}
          </strong>
          <ul>
            {[...errors].map(([path, message]) => (
              <li key={path}>
                <a href={`#${idOf(path.split('.'))}`}>
                  {humanize(path)}: {message}
                </a>
              </li>
            ))}
          </ul>
        </div>
      )}
      {errors.size === 0 && <ErrorNotice error={error} />}
      <div class='fields'>
        {fields.map((f) => (
          <FieldInput
            key={f.name}
            field={f}
            path={[f.name]}
            draft={draft}
            errors={errors}
            onChange={(path, value) => {
              setDraft((d) => setPath(d, path, value) as Record<string, unknown>)
            }}
          />
        ))}
      </div>
      {readOnly.length > 0 && (
        <dl class='read-only'>
          {readOnly.map((f) => (
            <div key={f.name}>
              <dt>
                {humanize(f.name)}{' '}
                <span class='muted small'>({f.computed === true ? 'computed' : 'read-only for your role'})</span>
              </dt>
              <dd>{formatValue(record?.[f.name]) || '—'}</dd>
            </div>
          ))}
        </dl>
      )}
      <div class='actions'>
        <button type='submit' class='primary' disabled={busy}>
          {busy ? 'Saving…' : mode === 'create' ? 'Create' : 'Save changes'}
        </button>
        {saved !== null && <Success>{saved}</Success>}
      </div>
    </form>
  )
}
