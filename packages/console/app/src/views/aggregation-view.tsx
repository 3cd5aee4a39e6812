// A declared aggregation: its typed parameters (kept in the URL), the results as a table and,
// when they have a number to plot, as a bar chart.
import { useMemo, useState } from 'preact/hooks'
import { Link, useLocation, useSearch } from 'wouter-preact'
import { useSchema } from '../lib/context.js'
import { humanize } from '../lib/fields.js'
import { formatValue } from '../lib/format.js'
import { useAsync } from '../lib/use-async.js'
import { Chart } from '../components/chart.js'
import { ErrorNotice, Loading } from '../components/notice.js'
import { UnknownSchema } from './resource-table.js'

const groupLabel = (v: unknown): string =>
  v === null || v === undefined
    ? '(none)'
    : typeof v === 'object'
      ? Object.values(v as object)
        .map(String)
        .join(' · ')
      : String(v)

export function AggregationView ({ path, name }: { path: string; name: string }): preact.JSX.Element {
  const found = useSchema(path)
  const search = useSearch()
  const [, navigate] = useLocation()
  const params = useMemo(() => Object.fromEntries(new URLSearchParams(search)), [search])
  const agg = found?.schema.aggregations.find((a) => a.name === name)
  const run = useAsync(async () => await found!.resource.aggregations[name](params), [path, name, search])
  const [measure, setMeasure] = useState<string | null>(null)
  if (found === null) return <UnknownSchema path={path} />
  if (agg === undefined) {
    return (
      <>
        <h1>Unknown aggregation</h1>
        <p>
          <Link href={`/data/${path}`}>Back to {humanize(path)}</Link>
        </p>
      </>
    )
  }
  const rows = run.data?.results ?? []
  const keys = [...new Set(rows.flatMap((r) => Object.keys(r)))]
  const numeric = keys.filter((k) => k !== '_id' && rows.some((r) => typeof r[k] === 'number'))
  const y = measure !== null && numeric.includes(measure) ? measure : numeric[0]
  const title = `${humanize(name)}${y !== undefined ? `: ${humanize(y).toLowerCase()}` : ''}`
  return (
    <>
      <p class='crumbs'>
        <Link href={`/data/${path}`}>{humanize(path)}</Link> › <span>Aggregations</span>
      </p>
      <h1>{humanize(name)}</h1>
      {agg.description !== undefined && <p class='muted'>{agg.description}</p>}
      {agg.params.length > 0 && (
        <form
          class='params'
          aria-label='Parameters'
          onSubmit={(e) => {
            e.preventDefault()
            const q = new URLSearchParams()
            for (const p of agg.params) {
              const v = (e.currentTarget.elements.namedItem(p.name) as HTMLInputElement).value.trim()
              if (v !== '') q.set(p.name, v)
            }
            navigate(`/data/${path}/aggregations/${name}${q.size > 0 ? `?${q.toString()}` : ''}`)
          }}
        >
          {agg.params.map((p) => (
            <div class='field' key={p.name}>
              <label for={`param-${p.name}`}>
                {humanize(p.name)}
                {p.required && (
                  <span aria-hidden='true' class='req'>
                    {' '}
                    *
                  </span>
                )}
              </label>
              <input
                id={`param-${p.name}`}
                name={p.name}
                required={p.required}
                defaultValue={params[p.name] ?? ''}
                type={p.type === 'Number' ? 'number' : p.type === 'date' ? 'date' : 'text'}
                step={p.type === 'Number' ? 'any' : undefined}
              />
            </div>
          ))}
          <button type='submit' class='primary'>
            Run
          </button>
        </form>
      )}
      {run.error !== undefined && <ErrorNotice error={run.error} />}
      {run.loading && <Loading label='Running the aggregation' />}
      {run.data !== undefined && rows.length === 0 && <p class='empty'>No results.</p>}
      {rows.length > 0 && (
        <>
          {numeric.length > 1 && (
            <p>
              <label for='measure'>Chart </label>
              <select
                id='measure'
                value={y}
                onChange={(e) => {
                  setMeasure(e.currentTarget.value)
                }}
              >
                {numeric.map((k) => (
                  <option key={k} value={k}>
                    {humanize(k)}
                  </option>
                ))}
              </select>
            </p>
          )}
          {y !== undefined && (
            <Chart
              label={title}
              spec={{
                $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
                width: 'container',
                height: 240,
                data: { values: rows.map((r) => ({ group: groupLabel(r._id), value: r[y] })) },
                mark: 'bar',
                encoding: {
                  x: { field: 'group', type: 'nominal', sort: null, title: 'Group', axis: { labelAngle: 0 } },
                  y: { field: 'value', type: 'quantitative', title: humanize(y) }
                }
              }}
            />
          )}
          <div class='table-wrap' role='region' aria-label='Results' tabIndex={0}>
            <table>
              <caption class='visually-hidden'>{humanize(name)} results</caption>
              <thead>
                <tr>
                  {keys.map((k) => (
                    <th scope='col' key={k}>
                      {k === '_id' ? 'Group' : humanize(k)}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {rows.map((r, i) => (
                  <tr key={i}>
                    {keys.map((k) => (
                      <td key={k}>{k === '_id' ? groupLabel(r[k]) : formatValue(r[k])}</td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
    </>
  )
}
