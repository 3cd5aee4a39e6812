/** Core option `eventLog`: how the durable event log (`app.svc.eventLog`) runs once a plugin enables it. */
export interface EventLogOptions {
  /**
   * How often (ms) the sequencer looks for new events and each process's follower for new
   * stamps when no change stream wakes them; default 100. With change streams they still look
   * every second (a safety net), never more often than this.
   */
  pollMs?: number
  /** Lease (ms) of the sequencer and of each durable consumer; default 10000. A dead holder's work resumes within it. */
  leaseMs?: number
  /** `'auto'` (default): change streams where the deployment serves them; `false`: always poll. */
  changeStreams?: 'auto' | false
  /** How often (ms) the sequencer's holder runs the retention sweep; default 60000. */
  sweepIntervalMs?: number
}

export interface EventLogSettings {
  pollMs: number
  leaseMs: number
  changeStreams: 'auto' | false
  sweepIntervalMs: number
}

function wholeMs (name: string, v: unknown, dflt: number, min: number): number {
  const n = v ?? dflt
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < min) {
    throw new Error(`@svc/core: option \`eventLog.${name}\` must be a whole number of milliseconds (at least ${min})`)
  }
  return n
}

export function eventLogSettings (opts: EventLogOptions = {}): EventLogSettings {
  if (opts === null || typeof opts !== 'object') throw new Error('@svc/core: option `eventLog` must be an object')
  const changeStreams = opts.changeStreams ?? 'auto'
  if (changeStreams !== 'auto' && changeStreams !== false) {
    throw new Error("@svc/core: option `eventLog.changeStreams` must be 'auto' or false")
  }
  return {
    pollMs: wholeMs('pollMs', opts.pollMs, 100, 1),
    leaseMs: wholeMs('leaseMs', opts.leaseMs, 10_000, 300),
    changeStreams,
    sweepIntervalMs: wholeMs('sweepIntervalMs', opts.sweepIntervalMs, 60_000, 1)
  }
}
