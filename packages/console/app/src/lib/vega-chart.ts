// Loaded on demand (its own chunk): Vega, Vega-Lite and vega-embed, bundled with the console
// (no CDN). Expressions run in Vega's interpreter, so the page needs no 'unsafe-eval'.
import embed, { type VisualizationSpec } from 'vega-embed'
import { expressionInterpreter } from 'vega-interpreter'

export async function drawChart (el: HTMLElement, spec: VisualizationSpec): Promise<() => void> {
  const result = await embed(el, spec, {
    actions: false,
    renderer: 'svg',
    ast: true,
    expr: expressionInterpreter,
    defaultStyle: false,
    tooltip: false
  })
  return () => {
    result.finalize()
  }
}
