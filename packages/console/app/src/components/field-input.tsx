// One input per field kind, generated from the manifest: enums as selects, numbers with their
// minimum, dates in UTC, nested objects as fieldsets, arrays as lists of inputs, Mixed as JSON.
import type { Field } from '../lib/describe.js'
import { getPath } from '../lib/draft.js'
import { humanize, itemKindOf, kindOf } from '../lib/fields.js'

export interface InputProps {
  field: Field
  path: Array<string | number>
  draft: Record<string, unknown>
  errors: Map<string, string>
  onChange: (path: Array<string | number>, value: unknown) => void
  /** A label other than the humanized field name (array items). */
  label?: string
}

export const idOf = (path: Array<string | number>): string => `field-${path.join('-')}`

function ErrorText ({ id, message }: { id: string; message: string | undefined }): preact.JSX.Element | null {
  return message === undefined
    ? null
    : (
      <p class='field-error' id={`${id}-error`}>
        {message}
      </p>
      )
}

function Scalar ({
  field,
  path,
  draft,
  errors,
  onChange,
  label,
  kind
}: InputProps & { kind: string }): preact.JSX.Element {
  const id = idOf(path)
  const error = errors.get(path.join('.'))
  const value = getPath(draft, path)
  const a11y = {
    id,
    'aria-invalid': error !== undefined ? ('true' as const) : undefined,
    'aria-describedby': error !== undefined ? `${id}-error` : undefined,
    required: field.required
  }
  const name = label ?? humanize(field.name)
  const labelEl = (
    <label for={id}>
      {name}
      {field.required && (
        <span aria-hidden='true' class='req'>
          {' '}
          *
        </span>
      )}
    </label>
  )
  let input: preact.JSX.Element
  if (field.enum !== undefined) {
    input = (
      <select
        {...a11y}
        value={value == null ? '' : String(value)}
        onChange={(e) => {
          onChange(path, e.currentTarget.value === '' ? null : e.currentTarget.value)
        }}
      >
        {!field.required && <option value=''>(none)</option>}
        {field.required && value == null && <option value=''>(choose)</option>}
        {field.enum.map((o) => (
          <option key={String(o)} value={String(o)}>
            {String(o)}
          </option>
        ))}
      </select>
    )
  } else if (kind === 'boolean') {
    return (
      <div class='field check'>
        <input
          type='checkbox'
          {...a11y}
          required={false}
          checked={value === true}
          onChange={(e) => {
            onChange(path, e.currentTarget.checked)
          }}
        />
        {labelEl}
        <ErrorText id={id} message={error} />
      </div>
    )
  } else if (kind === 'number') {
    input = (
      <input
        type='number'
        step='any'
        {...a11y}
        min={field.min}
        value={value == null ? '' : String(value)}
        onInput={(e) => {
          const v = e.currentTarget.value
          onChange(path, v === '' ? null : Number(v))
        }}
      />
    )
  } else if (kind === 'date') {
    const shown = typeof value === 'string' ? value.slice(0, 16) : ''
    input = (
      <input
        type='datetime-local'
        {...a11y}
        value={shown}
        onInput={(e) => {
          const v = e.currentTarget.value
          onChange(path, v === '' ? null : new Date(`${v}:00Z`).toISOString())
        }}
      />
    )
  } else {
    input = (
      <input
        type='text'
        {...a11y}
        value={value == null ? '' : String(value)}
        onInput={(e) => {
          onChange(path, e.currentTarget.value)
        }}
      />
    )
  }
  return (
    <div class='field'>
      {labelEl}
      {kind === 'date' && <span class='hint'>UTC</span>}
      {field.min !== undefined && <span class='hint'>at least {field.min}</span>}
      {input}
      <ErrorText id={id} message={error} />
    </div>
  )
}

function Mixed (p: InputProps): preact.JSX.Element {
  const id = idOf(p.path)
  const error = p.errors.get(p.path.join('.'))
  const v = getPath(p.draft, p.path)
  const text =
    v !== null && typeof v === 'object' && '__json' in (v as object)
      ? String((v as { __json: string }).__json)
      : v == null
        ? ''
        : JSON.stringify(v, null, 2)
  return (
    <div class='field'>
      <label for={id}>{p.label ?? humanize(p.field.name)}</label>
      <span class='hint'>JSON</span>
      <textarea
        id={id}
        rows={4}
        spellcheck={false}
        value={text}
        aria-invalid={error !== undefined ? 'true' : undefined}
        aria-describedby={error !== undefined ? `${id}-error` : undefined}
        onInput={(e) => {
          p.onChange(p.path, { __json: e.currentTarget.value })
        }}
      />
      <ErrorText id={id} message={error} />
    </div>
  )
}

function ArrayInput (p: InputProps): preact.JSX.Element {
  const items = (getPath(p.draft, p.path) as unknown[] | null | undefined) ?? []
  const itemKind = itemKindOf(p.field)
  const name = p.label ?? humanize(p.field.name)
  const error = p.errors.get(p.path.join('.'))
  const blank = itemKind === 'object' ? {} : itemKind === 'boolean' ? false : itemKind === 'number' ? null : ''
  return (
    <fieldset class='group' id={idOf(p.path)}>
      <legend>{name}</legend>
      {items.length === 0 && <p class='muted small'>None.</p>}
      {items.map((_, i) => (
        <div class='item' key={i}>
          {itemKind === 'object' && p.field.fields !== undefined
            ? (
              <fieldset class='group'>
                <legend>
                  {name} {i + 1}
                </legend>
                {p.field.fields.map((sub) => (
                  <FieldInput key={sub.name} {...p} field={sub} path={[...p.path, i, sub.name]} label={undefined} />
                ))}
              </fieldset>
              )
            : (
              <FieldInput
                {...p}
                field={{ ...p.field, type: p.field.type.slice(1, -1), required: false }}
                path={[...p.path, i]}
                label={`${name} ${i + 1}`}
              />
              )}
          <button
            type='button'
            onClick={() => {
              p.onChange(
                p.path,
                items.filter((__, j) => j !== i)
              )
            }}
          >
            Remove {name.toLowerCase()} {i + 1}
          </button>
        </div>
      ))}
      <button
        type='button'
        onClick={() => {
          p.onChange(p.path, [...items, blank])
        }}
      >
        Add {name.toLowerCase()}
      </button>
      {error !== undefined && <p class='field-error'>{error}</p>}
    </fieldset>
  )
}

export function FieldInput (p: InputProps): preact.JSX.Element {
  const kind = kindOf(p.field)
  if (kind === 'array') return <ArrayInput {...p} />
  if (kind === 'mixed') return <Mixed {...p} />
  if (kind === 'object' && p.field.fields !== undefined) {
    return (
      <fieldset class='group' id={idOf(p.path)}>
        <legend>{p.label ?? humanize(p.field.name)}</legend>
        {p.field.fields.map((sub) => (
          <FieldInput key={sub.name} {...p} field={sub} path={[...p.path, sub.name]} label={undefined} />
        ))}
      </fieldset>
    )
  }
  return <Scalar {...p} kind={kind} />
}
