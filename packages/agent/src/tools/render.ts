import type { ToolSpec } from '../model/types.js'
import { chartSpecProblem } from './chart-spec.js'

/** A `render` event's payload: a table or a Vega-Lite chart for the chat surface to draw. */
export type RenderPayload =
  { type: 'table'; columns: string[]; rows: unknown[][] } | { type: 'chart'; spec: Record<string, unknown> }

export const MAX_TABLE_ROWS = 500

export const renderTools: ToolSpec[] = [
  {
    name: 'render_table',
    description: 'Show the user a table. Use it for lists of records instead of writing them out in text.',
    parameters: {
      type: 'object',
      properties: {
        columns: { type: 'array', items: { type: 'string' }, description: 'Column headings' },
        rows: {
          type: 'array',
          items: { type: 'array' },
          description: `Rows, each an array of cell values in column order (at most ${MAX_TABLE_ROWS})`
        }
      },
      required: ['columns', 'rows']
    }
  },
  {
    name: 'render_chart',
    description: 'Show the user a chart, given as a Vega-Lite specification with its data inline (data.values).',
    parameters: {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          description: 'Vega-Lite spec, e.g. { mark: "bar", data: { values: [...] }, encoding: {...} }'
        }
      },
      required: ['spec']
    }
  }
]

export function isRenderTool (name: string): boolean {
  return name === 'render_table' || name === 'render_chart'
}

type Checked = { ok: true; payload: RenderPayload } | { ok: false; message: string }

/** Validates a render call; a malformed one goes back to the model as an error it can fix. */
export function checkRender (name: string, args: Record<string, unknown>): Checked {
  if (name === 'render_table') {
    const { columns, rows } = args
    if (!Array.isArray(columns) || columns.length === 0 || !columns.every((c) => typeof c === 'string')) {
      return { ok: false, message: 'columns must be a non-empty array of strings' }
    }
    if (!Array.isArray(rows) || !rows.every((r) => Array.isArray(r))) {
      return { ok: false, message: 'rows must be an array of arrays' }
    }
    if (rows.length > MAX_TABLE_ROWS) return { ok: false, message: `at most ${MAX_TABLE_ROWS} rows` }
    return { ok: true, payload: { type: 'table', columns, rows: rows as unknown[][] } }
  }
  const spec = args.spec
  if (spec == null || typeof spec !== 'object' || Array.isArray(spec)) {
    return { ok: false, message: 'spec must be a Vega-Lite object' }
  }
  const s = spec as Record<string, unknown>
  if (
    s.mark == null &&
    s.layer == null &&
    s.concat == null &&
    s.hconcat == null &&
    s.vconcat == null &&
    s.facet == null &&
    s.repeat == null
  ) {
    return { ok: false, message: 'spec needs a mark (or layer/concat/facet/repeat)' }
  }
  // Only inline data and the page's own options: a chart must not fetch, link or reconfigure the page.
  const problem = chartSpecProblem(s)
  if (problem != null) return { ok: false, message: problem }
  return { ok: true, payload: { type: 'chart', spec: s } }
}
