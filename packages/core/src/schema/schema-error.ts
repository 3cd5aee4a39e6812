/** A schema file problem that stops start-up; the message always names the file and the key. */
export class SchemaError extends Error {
  readonly source: string
  readonly key: string
  constructor (source: string, key: string, problem: string) {
    super(`invalid schema ${source}: ${key}: ${problem}`)
    this.name = 'SchemaError'
    this.source = source
    this.key = key
  }
}

/** Nearest candidate by edit distance, for "did you mean" hints; null when nothing is close. */
export function nearest (name: string, candidates: Iterable<string>): string | null {
  let best: string | null = null
  let bestScore = Infinity
  for (const c of candidates) {
    const d = distance(name.toLowerCase(), c.toLowerCase())
    if (d < bestScore) {
      bestScore = d
      best = c
    }
  }
  return best != null && bestScore <= Math.max(2, Math.floor(name.length / 3)) ? best : null
}

export function hint (name: string, candidates: Iterable<string>): string {
  const n = nearest(name, candidates)
  return n == null ? '' : ` — did you mean '${n}'?`
}

function distance (a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i)
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]
    row[0] = i
    for (let j = 1; j <= b.length; j++) {
      const tmp = row[j]
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1))
      prev = tmp
    }
  }
  return row[b.length]
}
