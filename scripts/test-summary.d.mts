export interface TestSummary {
  packages: number
  pass: number
  fail: number
  skip: number
  todo: number
  failed: string[]
  line: string
}

export function summarize(lines: string[], exitCode: number): TestSummary

export function failingPoints(lines: string[]): string[][]

export function packageSpans(timed: Array<{ line: string; at: number }>): Array<{ pkg: string; ms: number }>

export function formatSpans(spans: Array<{ pkg: string; ms: number }>): string
