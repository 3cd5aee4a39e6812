import type { Load } from '@svc/testkit/bench'

/**
 * The database commands one request of `load` issues, as "find 1, aggregate 1": the commands a
 * bench server started (its `GET /commands`, see bench-app.ts) over 20 requests in a row.
 * Count before any load runs: requests a load left in flight would still be issuing commands.
 */
export async function commandsPerRequest (commandsUrl: string, load: Load, n = 20): Promise<string> {
  const count = async (): Promise<Record<string, number>> => await (await fetch(commandsUrl)).json() as Record<string, number>
  const before = await count()
  for (let i = 0; i < n; i++) {
    const url = load.paths === undefined ? load.url : new URL(load.paths[i % load.paths.length], load.url).href
    const res = await fetch(url, { method: load.method, body: load.body, headers: load.headers })
    if (!res.ok) throw new Error(`${load.label}: ${res.status} ${await res.text()}`)
  }
  const after = await count()
  return Object.entries(after).filter(([k, v]) => v !== (before[k] ?? 0)).map(([k, v]) => `${k} ${(v - (before[k] ?? 0)) / n}`).join(', ')
}
