import { existsSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { MongoClient } from 'mongodb'
import type { Load } from '@svc/testkit/bench'

/**
 * The database commands one request of `load` issues, as "find 1, aggregate 1": the commands a
 * bench server started (its `GET /commands`, see bench-app.ts) over 20 requests in a row.
 * Count before any load runs: requests a load left in flight would still be issuing commands.
 */
export async function commandsPerRequest (commandsUrl: string, load: Load, n = 20): Promise<string> {
  const count = async (): Promise<Record<string, number>> =>
    (await (await fetch(commandsUrl)).json()) as Record<string, number>
  const before = await count()
  for (let i = 0; i < n; i++) {
    const url = load.paths === undefined ? load.url : new URL(load.paths[i % load.paths.length], load.url).href
    const res = await fetch(url, { method: load.method, body: load.body, headers: load.headers })
    if (!res.ok) throw new Error(`${load.label}: ${res.status} ${await res.text()}`)
  }
  const after = await count()
  return Object.entries(after)
    .filter(([k, v]) => v !== (before[k] ?? 0))
    .map(([k, v]) => `${k} ${(v - (before[k] ?? 0)) / n}`)
    .join(', ')
}

/**
 * The database server's CPU time so far (µs), when it runs on this machine (the bench's devdb
 * child): its pid from `serverStatus`, its user + system time from /proc (Linux). Undefined
 * elsewhere — a remote MONGODB_URI, another OS.
 */
export async function databaseCpu (uri: string): Promise<(() => Promise<number>) | undefined> {
  const client = await new MongoClient(uri).connect()
  try {
    const { host, pid } = await client.db().admin().command({ serverStatus: 1 })
    const file = `/proc/${String(pid)}/stat`
    if (!/^(127\.0\.0\.1|localhost):/.test(String(host)) || !existsSync(file)) return undefined
    // Fields 14 and 15 (utime, stime) in clock ticks of 10 ms, after the parenthesised command name.
    return async () => {
      const fields = (await readFile(file, 'utf8')).split(') ')[1].split(' ')
      return (Number(fields[11]) + Number(fields[12])) * 10_000
    }
  } finally {
    await client.close()
  }
}
