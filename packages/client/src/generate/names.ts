const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/

/** A property key as TypeScript source: bare when it is an identifier, quoted otherwise. */
export function key (name: string): string {
  return IDENTIFIER.test(name) ? name : quote(name)
}

/** A single-quoted string literal (the repository's style). */
export function quote (s: string): string {
  return `'${JSON.stringify(s).slice(1, -1).replace(/\\"/g, '"').replace(/'/g, "\\'")}'`
}

/** `line-items` → `LineItems`: the prefix of a schema's type names. */
export function pascal (name: string): string {
  const words = name.split(/[^A-Za-z0-9]+/).filter((w) => w !== '')
  const out = words.map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join('')
  return /^[0-9]/.test(out) ? `T${out}` : out
}

/** `line-items` → `lineItems`: the property of the schema on the client. */
export function camel (name: string): string {
  const p = pascal(name)
  return p.charAt(0).toLowerCase() + p.slice(1)
}

export function literal (v: unknown): string {
  return typeof v === 'string' ? quote(v) : JSON.stringify(v)
}

export function union (values: readonly unknown[]): string {
  return values.length === 0 ? 'never' : values.map(literal).join(' | ')
}

/** Code-unit order: locale-independent, so output is the same on every machine. */
export function byCode (a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}
