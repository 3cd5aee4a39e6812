// Related records one click away: belongsTo/hasOne as a link, hasMany as a short list plus the
// target's table filtered by the foreign key.
import { Link } from 'wouter-preact'
import type { Rec } from '../lib/api.js'
import type { Schema } from '../lib/describe.js'
import { humanize, recordLabel } from '../lib/fields.js'
import { useConsole } from '../lib/context.js'

const SHOWN = 10

export function Related ({ schema, record }: { schema: Schema; record: Rec }): preact.JSX.Element {
  const { describe, identity } = useConsole()
  return (
    <section aria-labelledby='related-title'>
      <h2 id='related-title'>Related</h2>
      <dl class='related'>
        {Object.entries(schema.relations).map(([rel, def]) => {
          const target = describe.schemas.find((s) => s.path === def.target)
          const value = record[rel]
          const name = (r: Rec): string => (target === undefined ? r._id : recordLabel(target, identity.roles, r))
          return (
            <div key={rel}>
              <dt>
                {humanize(rel)}{' '}
                <span class='muted small'>
                  ({def.kind} {def.target})
                </span>
              </dt>
              <dd>
                {def.kind !== 'hasMany'
                  ? (
                      value != null && typeof value === 'object'
                        ? (
                          <Link href={`/data/${def.target}/${(value as Rec)._id}`}>{name(value as Rec)}</Link>
                          )
                        : (
                          <span class='muted'>none</span>
                          )
                    )
                  : (
                    <>
                      {Array.isArray(value) && value.length > 0
                        ? (
                          <ul>
                            {(value as Rec[]).slice(0, SHOWN).map((r) => (
                              <li key={r._id}>
                                <Link href={`/data/${def.target}/${r._id}`}>{name(r)}</Link>
                              </li>
                            ))}
                          </ul>
                          )
                        : (
                          <p class='muted'>none</p>
                          )}
                      <Link href={`/data/${def.target}?${new URLSearchParams({ [def.fk]: record._id }).toString()}`}>
                        All {humanize(rel).toLowerCase()} of this record
                      </Link>
                    </>
                    )}
              </dd>
            </div>
          )
        })}
      </dl>
    </section>
  )
}
