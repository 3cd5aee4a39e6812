/** Top-level Vega-Lite properties a chart may use: views, data inline, layout and styling. */
const TOP_LEVEL = new Set([
  '$schema',
  'title',
  'description',
  'name',
  'data',
  'datasets',
  'mark',
  'encoding',
  'transform',
  'width',
  'height',
  'autosize',
  'padding',
  'background',
  'config',
  'layer',
  'concat',
  'hconcat',
  'vconcat',
  'facet',
  'repeat',
  'spec',
  'resolve',
  'projection',
  'params',
  'columns',
  'spacing',
  'align',
  'bounds',
  'center'
])

/**
 * Keys refused anywhere in the spec: `usermeta` (vega-embed reads its `embedOptions` and would
 * let a chart turn the action menu on and point it at another site), `url` (data or images the
 * viewer's browser would fetch), `href` (marks that are links), `bind` (form inputs on the page),
 * `loader`.
 */
const REFUSED = new Set(['usermeta', 'url', 'href', 'bind', 'loader'])

const MAX_CHARS = 200_000
const MAX_DEPTH = 24
const VEGA_LITE_SCHEMA = /^https:\/\/vega\.github\.io\/schema\/vega-lite\/v\d+(\.\d+)*\.json$/

function walk (value: unknown, path: string, depth: number): string | null {
  if (depth > MAX_DEPTH) return `${path} is nested too deeply`
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const problem = walk(value[i], `${path}[${i}]`, depth + 1)
      if (problem != null) return problem
    }
    return null
  }
  if (value == null || typeof value !== 'object') return null
  for (const [key, v] of Object.entries(value)) {
    if (REFUSED.has(key)) {
      return `${path}.${key} is not allowed in a chart (data inline in data.values, no links, no embed options)`
    }
    const problem = walk(v, `${path}.${key}`, depth + 1)
    if (problem != null) return problem
  }
  return null
}

/** Null for a chart the page may draw, else what is wrong with it (the model reads it and can fix the spec). */
export function chartSpecProblem (spec: Record<string, unknown>): string | null {
  if (JSON.stringify(spec).length > MAX_CHARS) return `spec is larger than ${MAX_CHARS} characters`
  const unknown = Object.keys(spec).find((k) => !TOP_LEVEL.has(k))
  if (unknown != null) return `spec.${unknown} is not a Vega-Lite property a chart may use`
  if (spec.$schema != null && (typeof spec.$schema !== 'string' || !VEGA_LITE_SCHEMA.test(spec.$schema))) {
    return 'spec.$schema must be a Vega-Lite schema (https://vega.github.io/schema/vega-lite/v5.json) or absent'
  }
  return walk(spec, 'spec', 0)
}
