// A file field: what is stored, an image preview, a download through a (signed) link fetched
// when needed, an upload and a removal. Private links live about five minutes: fetched anew.
import { useState } from 'preact/hooks'
import { method, type FileMeta, type Rec, type Resource } from '../lib/api.js'
import type { Field, Schema } from '../lib/describe.js'
import { canUpdate, humanize } from '../lib/fields.js'
import { formatBytes, formatDate } from '../lib/format.js'
import { useConsole } from '../lib/context.js'
import { useAsync } from '../lib/use-async.js'
import { ErrorNotice } from './notice.js'

interface Props {
  schema: Schema
  resource: Resource
  field: Field
  record: Rec
  disabled: boolean
  onChange: () => void
}

export function FileField ({ resource, field, record, disabled, onChange }: Props): preact.JSX.Element {
  const { identity } = useConsole()
  const meta = record[field.name] as FileMeta | undefined | null
  const fetchUrl = resource[method('fetch', field.name, 'Url')] as (id: string) => Promise<FileMeta & { url: string }>
  const upload = resource[method('upload', field.name)] as (
    id: string,
    blob: Blob,
    o?: { filename?: string }
  ) => Promise<FileMeta>
  const remove = resource[method('delete', field.name)] as (id: string) => Promise<unknown>
  const image = meta?.contentType.startsWith('image/') === true
  // Public files carry their URL; private ones need a signed link, fetched for the preview only.
  const preview = useAsync(
    async () => (image && meta != null ? (meta.url ?? (await fetchUrl(record._id)).url) : null),
    [meta?.key, disabled]
  )
  const [error, setError] = useState<unknown>(null)
  const [busy, setBusy] = useState(false)
  const writable = canUpdate(field, identity.roles) && !disabled
  const id = `file-${field.name}`
  const run = (p: () => Promise<unknown>): void => {
    setBusy(true)
    setError(null)
    p()
      .then(onChange, setError)
      .finally(() => {
        setBusy(false)
      })
  }
  return (
    <div class='file-field' role='group' aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}>{humanize(field.name)}</h3>
      {meta == null
        ? (
          <p class='muted'>No file.</p>
          )
        : (
          <div class='file'>
            {image && preview.data != null && (
              <img src={preview.data} alt={`${humanize(field.name)}: ${meta.originalName}`} class='preview' />
            )}
            <p>
              {meta.originalName}{' '}
              <span class='muted small'>
                {meta.contentType} · {formatBytes(meta.size)} · {formatDate(meta.uploadedAt)}
              </span>
            </p>
            <div class='actions'>
              <button
                type='button'
                onClick={() => {
                  fetchUrl(record._id).then((m) => {
                    window.location.assign(m.url)
                  }, setError)
                }}
              >
                Download
              </button>
              {writable && (
                <button
                  type='button'
                  class='danger'
                  disabled={busy}
                  onClick={() => {
                    run(async () => await remove(record._id))
                  }}
                >
                  Remove file
                </button>
              )}
            </div>
          </div>
          )}
      {writable && (
        <form
          class='upload'
          onSubmit={(e) => {
            e.preventDefault()
            const input = e.currentTarget.elements.namedItem('file') as HTMLInputElement
            const file = input.files?.[0]
            if (file !== undefined) {
              run(async () => {
                await upload(record._id, file, { filename: file.name })
                input.value = ''
              })
            }
          }}
        >
          <label for={id}>{meta == null ? 'Upload a file' : 'Replace the file'}</label>
          <span class='hint'>
            {field.file?.accept?.join(', ') ?? 'any type'}, at most{' '}
            {formatBytes(field.file?.maxBytes ?? 10 * 1024 * 1024)}
          </span>
          <input id={id} name='file' type='file' accept={field.file?.accept?.join(',')} required />
          <button type='submit' disabled={busy}>
            {busy ? 'Uploading…' : 'Upload'}
          </button>
        </form>
      )}
      <ErrorNotice error={error} />
    </div>
  )
}
