// Field filters with operators, edited as rows and applied as the list's query parameters.
import { useState } from 'preact/hooks'
import type { Field } from '../lib/describe.js'
import { humanize, itemKindOf, kindOf } from '../lib/fields.js'
import { OP_LABELS, filterOf, opsFor, rowsOf, type FilterRow, type Op } from '../lib/list-query.js'

interface Props {
  fields: Array<{ path: string; field: Field }>
  filter: Record<string, unknown>
  onApply: (filter: Record<string, unknown>) => void
}

function inputType (f: Field | undefined, op: Op): string {
  if (f === undefined || op === 'in' || op === 'contains' || op === 'regex') return 'text'
  const k = kindOf(f) === 'array' ? itemKindOf(f) : kindOf(f)
  return k === 'number' ? 'number' : k === 'date' ? 'datetime-local' : 'text'
}

function ValueInput ({
  row,
  field,
  id,
  onChange
}: {
  row: FilterRow
  field: Field | undefined
  id: string
  onChange: (v: string) => void
}): preact.JSX.Element {
  const label = `Value ${id.split('-').pop() ?? ''}`
  if (field !== undefined && (field.enum !== undefined || kindOf(field) === 'boolean') && row.op !== 'in') {
    const options = field.enum !== undefined ? field.enum.map(String) : ['true', 'false']
    return (
      <select
        id={id}
        aria-label={label}
        value={row.value}
        onChange={(e) => {
          onChange(e.currentTarget.value)
        }}
      >
        <option value=''>(choose)</option>
        {options.map((o) => (
          <option key={o} value={o}>
            {o}
          </option>
        ))}
      </select>
    )
  }
  const type = inputType(field, row.op)
  // datetime-local has no zone: values are read and sent as UTC.
  const shown = type === 'datetime-local' ? row.value.replace(/Z$/, '').slice(0, 16) : row.value
  return (
    <input
      id={id}
      aria-label={label}
      type={type}
      value={shown}
      placeholder={row.op === 'in' ? 'a, b, c' : ''}
      onInput={(e) => {
        const v = e.currentTarget.value
        onChange(type === 'datetime-local' && v !== '' ? `${v}:00Z` : v)
      }}
    />
  )
}

export function FilterBar ({ fields, filter, onApply }: Props): preact.JSX.Element {
  const [rows, setRows] = useState<FilterRow[]>(() => rowsOf(filter))
  const fieldOf = (path: string): Field | undefined => fields.find((f) => f.path === path)?.field
  const update = (i: number, patch: Partial<FilterRow>): void => {
    setRows((rs) =>
      rs.map((r, j) => {
        if (j !== i) return r
        const next = { ...r, ...patch }
        if (patch.path !== undefined) {
          const f = fieldOf(patch.path)
          next.op = f !== undefined ? opsFor(f)[0] : 'eq'
          next.value = ''
        }
        return next
      })
    )
  }
  return (
    <form
      class='filters'
      aria-label='Filters'
      onSubmit={(e) => {
        e.preventDefault()
        onApply(filterOf(rows, fieldOf))
      }}
    >
      {rows.length === 0 && <p class='muted small'>No filter: every record of your tenant.</p>}
      {rows.map((r, i) => {
        const f = fieldOf(r.path)
        return (
          <div class='filter-row' key={i} role='group' aria-label={`Filter ${i + 1}`}>
            <select
              aria-label={`Field ${i + 1}`}
              value={r.path}
              onChange={(e) => {
                update(i, { path: e.currentTarget.value })
              }}
            >
              {fields.map((x) => (
                <option key={x.path} value={x.path}>
                  {humanize(x.path)}
                </option>
              ))}
            </select>
            <select
              aria-label={`Operator ${i + 1}`}
              value={r.op}
              onChange={(e) => {
                update(i, { op: e.currentTarget.value as Op })
              }}
            >
              {(f !== undefined ? opsFor(f) : ['eq' as Op]).map((o) => (
                <option key={o} value={o}>
                  {OP_LABELS[o]}
                </option>
              ))}
            </select>
            <ValueInput
              row={r}
              field={f}
              id={`filter-value-${i + 1}`}
              onChange={(value) => {
                update(i, { value })
              }}
            />
            <button
              type='button'
              class='icon'
              aria-label={`Remove filter ${i + 1}`}
              onClick={() => {
                setRows((rs) => rs.filter((_, j) => j !== i))
              }}
            >
              ✕
            </button>
          </div>
        )
      })}
      <div class='actions'>
        <button
          type='button'
          onClick={() => {
            const first = fields[0]
            if (first !== undefined) {
              setRows((rs) => [...rs, { path: first.path, op: opsFor(first.field)[0], value: '' }])
            }
          }}
        >
          Add filter
        </button>
        <button type='submit' class='primary'>
          Apply filters
        </button>
        {rows.length > 0 && (
          <button
            type='button'
            onClick={() => {
              setRows([])
              onApply({})
            }}
          >
            Clear
          </button>
        )}
      </div>
    </form>
  )
}
