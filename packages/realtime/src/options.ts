import type { RealtimeOptions, RealtimeSettings } from './types.js'

function positive (name: string, v: unknown, dflt: number, integer: boolean): number {
  const n = v ?? dflt
  if (typeof n !== 'number' || !Number.isFinite(n) || n <= 0 || (integer && !Number.isSafeInteger(n))) {
    throw new Error(`@svc/realtime: option \`${name}\` must be a ${integer ? 'whole number' : 'number'} > 0`)
  }
  return n
}

/** The plugin's options with their defaults (CONTRACT "Realtime"), refused at boot when invalid. */
export function realtimeSettings (opts: RealtimeOptions = {}): RealtimeSettings {
  const prefix = opts.prefix ?? '/api/v1'
  if (!/^(\/[\w-]+)+$/.test(prefix)) {
    throw new Error('@svc/realtime: option `prefix` must be a URL path such as /api/v1')
  }
  return {
    retentionHours: positive('retentionHours', opts.retentionHours, 24, false),
    heartbeatSeconds: positive('heartbeatSeconds', opts.heartbeatSeconds, 15, false),
    maxStreamsPerUser: positive('maxStreamsPerUser', opts.maxStreamsPerUser, 20, true),
    maxBufferedBytes: positive('maxBufferedBytes', opts.maxBufferedBytes, 256 * 1024, true),
    ticketTtlSeconds: positive('ticketTtlSeconds', opts.ticketTtlSeconds, 60, false),
    prefix
  }
}
