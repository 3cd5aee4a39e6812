/**
 * What the attack tests assert: not how fast the attack itself is answered, but that another
 * client is served while it runs. `attack` is started `concurrency` times at once; meanwhile
 * `victim` runs again and again until every attack is answered (at least once). `victimMs` is
 * the longest wait between two of its answers (the first from the start): everything shares
 * the process's event loop, as every client of a real server does, so an attack that blocks
 * the loop, or keeps the victim queued, shows there.
 */
export async function latencyUnderAttack<T> (attack: () => Promise<T>, victim: () => Promise<unknown>, opts: { concurrency?: number } = {}): Promise<{ victimMs: number, victimRuns: number, attacks: T[] }> {
  let last = performance.now()
  let settled = false
  const running = Promise.all(Array.from({ length: opts.concurrency ?? 1 }, async () => await attack()))
  void running.finally(() => { settled = true }).catch(() => {})
  let victimMs = 0
  let victimRuns = 0
  do {
    await victim()
    const now = performance.now()
    victimMs = Math.max(victimMs, now - last)
    last = now
    victimRuns++
  } while (!settled)
  return { victimMs, victimRuns, attacks: await running }
}
