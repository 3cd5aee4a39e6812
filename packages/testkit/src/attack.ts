import { connect, type Socket } from 'node:net'

/**
 * What the attack tests assert: not how fast the attack itself is answered, but that another
 * client is served while it runs. `attack` is started `concurrency` times at once; meanwhile
 * `victim` runs again and again until every attack is answered (at least once). `victimMs` is
 * the longest wait between two of its answers (the first from the start): everything shares
 * the process's event loop, as every client of a real server does, so an attack that blocks
 * the loop, or keeps the victim queued, shows there.
 */
export async function latencyUnderAttack<T> (
  attack: () => Promise<T>,
  victim: () => Promise<unknown>,
  opts: { concurrency?: number } = {}
): Promise<{ victimMs: number; victimRuns: number; attacks: T[] }> {
  let last = performance.now()
  // An object, not a `let`: the loop below reads a flag that only the promise's callback sets.
  const attacks = { settled: false }
  const running = Promise.all(Array.from({ length: opts.concurrency ?? 1 }, async () => await attack()))
  void running
    .finally(() => {
      attacks.settled = true
    })
    .catch(() => {})
  let victimMs = 0
  let victimRuns = 0
  do {
    await victim()
    const now = performance.now()
    victimMs = Math.max(victimMs, now - last)
    last = now
    victimRuns++
  } while (!attacks.settled)
  return { victimMs, victimRuns, attacks: await running }
}

export interface Trickled {
  status: number
  body: string
  ms: number
}

/**
 * A slow client on a raw socket: writes `atOnce`, then one character of `slowly` every
 * `intervalMs` until the server closes the connection. Answers the status the server sent (0:
 * none), its body and how long after connecting the connection closed.
 */
export async function trickle (
  host: string,
  port: number,
  atOnce: string,
  slowly: string,
  intervalMs = 200
): Promise<Trickled> {
  return await new Promise((resolve) => {
    const started = performance.now()
    const socket: Socket = connect(port, host)
    let data = ''
    if (atOnce !== '') socket.write(atOnce)
    let i = 0
    const timer = setInterval(() => {
      if (!socket.destroyed && i < slowly.length) socket.write(slowly[i++])
    }, intervalMs)
    socket.on('data', (d) => {
      data += d.toString()
    })
    socket.on('error', () => {})
    socket.on('close', () => {
      clearInterval(timer)
      const m = /^HTTP\/1\.1 (\d+)[\s\S]*?\r\n\r\n([\s\S]*)$/.exec(data)
      resolve({ status: m === null ? 0 : Number(m[1]), body: m?.[2] ?? '', ms: performance.now() - started })
    })
  })
}
