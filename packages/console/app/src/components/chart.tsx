import { useEffect, useRef, useState } from 'preact/hooks'
import type { VisualizationSpec } from 'vega-embed'

/** A Vega-Lite chart; the chart libraries load with the first one drawn. The table beside it is the text alternative. */
export function Chart ({ spec, label }: { spec: VisualizationSpec; label: string }): preact.JSX.Element {
  const el = useRef<HTMLDivElement>(null)
  const [error, setError] = useState<string | null>(null)
  useEffect(() => {
    let dispose: (() => void) | undefined
    let live = true
    import('../lib/vega-chart.js')
      .then(async ({ drawChart }) => {
        const d = await drawChart(el.current!, spec)
        if (live) dispose = d
        else d()
      })
      .catch((err: unknown) => {
        setError(err instanceof Error ? err.message : String(err))
      })
    return () => {
      live = false
      dispose?.()
    }
  }, [JSON.stringify(spec)])
  return (
    <figure class='chart' aria-label={label}>
      <div ref={el} />
      {error !== null && (
        <p class='notice error' role='alert'>
          The chart could not be drawn: {error}
        </p>
      )}
      <figcaption class='muted small'>{label}</figcaption>
    </figure>
  )
}
