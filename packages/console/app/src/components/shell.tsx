import type { ComponentChildren } from 'preact'
import { Link, useLocation } from 'wouter-preact'
import { useConsole } from '../lib/context.js'
import { humanize } from '../lib/fields.js'

/** Header, the schema navigation and the page; a skip link first for keyboard users. */
export function Shell ({ children }: { children: ComponentChildren }): preact.JSX.Element {
  const { describe, identity, signOut } = useConsole()
  const [location] = useLocation()
  const current = (href: string): 'page' | undefined =>
    location === href || location.startsWith(`${href}/`) ? 'page' : undefined
  return (
    <>
      <a class='skip' href='#main'>
        Skip to content
      </a>
      <header class='top'>
        <Link href='/' class='brand'>
          svc console
        </Link>
        <div class='who'>
          <span class='email' title={`user id ${identity.userId}`}>
            {identity.email}
          </span>
          <span class='muted small'>{identity.roles.join(', ') || 'no roles'}</span>
          <button type='button' onClick={signOut}>
            Sign out
          </button>
        </div>
      </header>
      <div class='layout'>
        <nav class='side' aria-label='Schemas'>
          <ul>
            {describe.schemas.map((s) => (
              <li key={s.path}>
                <Link href={`/data/${s.path}`} aria-current={current(`/data/${s.path}`)}>
                  {humanize(s.path)}
                </Link>
              </li>
            ))}
            {describe.features.webhooks === true && (
              <li class='sep'>
                <Link href='/webhooks' aria-current={current('/webhooks')}>
                  Webhooks
                </Link>
              </li>
            )}
          </ul>
        </nav>
        <main id='main' tabIndex={-1}>
          {children}
        </main>
      </div>
    </>
  )
}
