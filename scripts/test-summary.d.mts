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
