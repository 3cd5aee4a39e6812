// Loads the manifest, resumes a session a reload left behind, and routes. Signed out, every
// console path shows the sign-in form and, once signed in, the page that was asked for.
import { useEffect, useMemo, useState } from 'preact/hooks'
import { Route, Router, Switch } from 'wouter-preact'
import { client, fetchDescribe, http, resourcesOf, tokens } from './lib/api.js'
import { ConsoleContext, type ConsoleState } from './lib/context.js'
import type { Describe } from './lib/describe.js'
import { identityOf, type Identity } from './lib/session.js'
import { ErrorNotice, Loading } from './components/notice.js'
import { Shell } from './components/shell.js'
import { AuthPages } from './views/auth-pages.js'
import { Home } from './views/home.js'
import { ResourceTable } from './views/resource-table.js'
import { RecordPage } from './views/record-page.js'
import { NewRecord } from './views/new-record.js'
import { Trash } from './views/trash.js'
import { AggregationView } from './views/aggregation-view.js'
import { Webhooks } from './views/webhooks.js'
import { WebhookDetail } from './views/webhook-detail.js'

/** `/console` from `<base href="/console/">`, which the plugin writes into the page. */
const BASE = new URL(document.baseURI).pathname.replace(/\/+$/, '')

async function resumeSession (): Promise<void> {
  const refreshToken = tokens.storedRefreshToken()
  if (refreshToken === null) return
  try {
    tokens.set(await http.request({ method: 'POST', path: '/auth/refresh', json: { refreshToken }, auth: false }))
  } catch {
    tokens.set(null)
  }
}

export function Root (): preact.JSX.Element {
  const [describe, setDescribe] = useState<Describe | null>(null)
  const [error, setError] = useState<unknown>(null)
  const [identity, setIdentity] = useState<Identity | null>(null)
  const [ended, setEnded] = useState(false)

  useEffect(
    () =>
      tokens.subscribe((t) => {
        const next = t === null ? null : identityOf(t.accessToken)
        setIdentity((prev) => {
          if (prev !== null && next === null) setEnded(true)
          return next
        })
      }),
    []
  )
  useEffect(() => {
    Promise.all([fetchDescribe(), resumeSession()]).then(([d]) => {
      setDescribe(d)
    }, setError)
  }, [])

  const state = useMemo<ConsoleState | null>(
    () =>
      describe === null || identity === null
        ? null
        : {
            describe,
            identity,
            resources: resourcesOf(describe),
            signOut: () => {
              setEnded(false)
              void client.auth.logout()
            }
          },
    [describe, identity]
  )

  if (error !== null) {
    return (
      <main id='main' class='boot'>
        <h1>svc console</h1>
        <ErrorNotice error={error} title='The service could not be reached' />
      </main>
    )
  }
  if (describe === null) {
    return (
      <main id='main' class='boot'>
        <h1>svc console</h1>
        <Loading label='Connecting' />
      </main>
    )
  }
  return (
    <Router base={BASE}>
      {state === null
        ? (
          <AuthPages ended={ended} />
          )
        : (
          <ConsoleContext.Provider value={state}>
            <Shell>
              <Switch>
                <Route path='/' component={Home} />
                <Route path='/webhooks' component={Webhooks} />
                <Route path='/webhooks/:id'>{(p) => <WebhookDetail id={p.id} />}</Route>
                <Route path='/data/:path'>{(p) => <ResourceTable path={p.path} />}</Route>
                <Route path='/data/:path/new'>{(p) => <NewRecord path={p.path} />}</Route>
                <Route path='/data/:path/trash'>{(p) => <Trash path={p.path} />}</Route>
                <Route path='/data/:path/aggregations/:name'>
                  {(p) => <AggregationView path={p.path} name={p.name} />}
                </Route>
                <Route path='/data/:path/:id'>{(p) => <RecordPage path={p.path} id={p.id} />}</Route>
                <Route>
                  <h1>Not found</h1>
                  <p>
                    No console page here. <a href={`${BASE}/`}>Back to the schemas</a>.
                  </p>
                </Route>
              </Switch>
            </Shell>
          </ConsoleContext.Provider>
          )}
    </Router>
  )
}
