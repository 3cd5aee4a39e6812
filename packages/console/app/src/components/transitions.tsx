// State-machine fields: the current state and one button per state reachable from it, read from
// the record's `availableTransitions` (flat with one machine, by field with several).
import type { Rec } from '../lib/api.js'
import type { Schema } from '../lib/describe.js'
import { humanize } from '../lib/fields.js'

interface Props {
  schema: Schema
  record: Rec
  onMove: (field: string, to: string) => Promise<void>
}

function reachable (record: Rec, field: string, machines: number): string[] | null {
  const a = record.availableTransitions
  if (machines === 1) return Array.isArray(a) ? a.map(String) : null
  const byField =
    a !== null && typeof a === 'object' && !Array.isArray(a) ? (a as Record<string, unknown>)[field] : undefined
  return Array.isArray(byField) ? byField.map(String) : null
}

export function Transitions ({ schema, record, onMove }: Props): preact.JSX.Element | null {
  const fields = Object.keys(schema.stateMachines)
  const shown = fields.filter((f) => reachable(record, f, fields.length) !== null)
  if (shown.length === 0) return null
  const deleted = record.deletedAt != null
  return (
    <section aria-labelledby='states-title' class='states'>
      <h2 id='states-title'>State</h2>
      {shown.map((field) => {
        const next = reachable(record, field, fields.length) ?? []
        const machine = schema.stateMachines[field]
        return (
          <div key={field} class='state' role='group' aria-label={`${humanize(field)} transitions`}>
            <p>
              {humanize(field)}: <span class='badge'>{String(record[field] ?? 'none')}</span>
            </p>
            {next.length === 0
              ? (
                <p class='muted small'>A final state: no transition leaves it.</p>
                )
              : (
                <div class='actions'>
                  {next.map((to) => (
                    <button
                      key={to}
                      type='button'
                      disabled={deleted}
                      onClick={() => {
                        void onMove(field, to)
                      }}
                    >
                      Move to {to}
                    </button>
                  ))}
                </div>
                )}
            <p class='muted small'>States: {machine.states.join(' · ')}</p>
          </div>
        )
      })}
    </section>
  )
}
