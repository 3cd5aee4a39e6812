// What the realtime feed says about the open table: a badge for the feed's state, and a bar
// offering a refresh when records were created (or changed in ways the page cannot place).
import type { Rec } from '../lib/api.js'
import type { LiveTable } from '../lib/live.js'
import { ErrorNotice } from './notice.js'

export function LiveBadge ({ live }: { live: LiveTable }): preact.JSX.Element | null {
  if (live.status === 'live') {
    return (
      <span class='badge ok' title='Changes to these records appear as they happen'>
        Live
      </span>
    )
  }
  if (live.status === 'connecting') return <span class='badge'>Connecting…</span>
  if (live.status === 'reconnecting') {
    return (
      <span class='badge warn' title='The connection was lost; changes made meanwhile arrive once it is back'>
        Reconnecting…
      </span>
    )
  }
  if (live.status === 'stopped') return <span class='badge warn'>Live updates stopped</span>
  return null
}

export function LiveBar ({
  live,
  shown,
  onRefresh
}: {
  live: LiveTable
  shown: Rec[]
  onRefresh: () => void
}): preact.JSX.Element {
  const ids = new Set(shown.map((r) => r._id))
  const fresh = [...live.created].filter((id) => !ids.has(id)).length
  const what = [
    ...(fresh > 0 ? [`${fresh} new record${fresh === 1 ? '' : 's'}`] : []),
    ...(live.stale ? ['records changed in ways this page cannot show'] : [])
  ]
  return (
    <>
      {live.status === 'stopped' && (
        <ErrorNotice error={live.error} title='Live updates stopped: refresh the page to see changes' />
      )}
      <p class='visually-hidden' role='status' aria-live='polite'>
        {live.announcement}
      </p>
      {what.length > 0 && (
        <div class='notice live'>
          <span>{what.join('; ')}.</span>{' '}
          <button type='button' onClick={onRefresh}>
            Refresh
          </button>
        </div>
      )}
    </>
  )
}
