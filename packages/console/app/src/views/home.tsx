import { Link } from 'wouter-preact'
import { useConsole } from '../lib/context.js'
import { canRead, humanize } from '../lib/fields.js'

/** The schemas of `_describe`, with what each one offers. */
export function Home (): preact.JSX.Element {
  const { describe, identity } = useConsole()
  return (
    <>
      <h1>Schemas</h1>
      <p class='muted'>
        API {describe.version}. Everything here goes through the API with your own token: you see what your role may
        see, in your tenant only.
      </p>
      <ul class='cards'>
        {describe.schemas.map((s) => {
          const fields = s.fields.filter((f) => f.stamped !== true && canRead(f, identity.roles))
          const traits = [
            s.softDelete && 'soft delete',
            s.audit && 'history',
            s.fileFields.length > 0 && 'files',
            Object.keys(s.stateMachines).length > 0 && 'states',
            s.aggregations.length > 0 &&
              `${s.aggregations.length} aggregation${s.aggregations.length === 1 ? '' : 's'}`,
            Object.keys(s.relations).length > 0 &&
              `${Object.keys(s.relations).length} relation${Object.keys(s.relations).length === 1 ? '' : 's'}`
          ].filter(Boolean)
          return (
            <li key={s.path} class='card'>
              <h2>
                <Link href={`/data/${s.path}`}>{humanize(s.path)}</Link>
              </h2>
              <p class='muted small'>
                <code>
                  /api/{s.version}/{s.path}
                </code>{' '}
                · {fields.length} fields
              </p>
              <p class='small'>{traits.join(' · ')}</p>
            </li>
          )
        })}
      </ul>
    </>
  )
}
