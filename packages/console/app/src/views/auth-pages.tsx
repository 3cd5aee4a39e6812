// Signed out: sign in, create an account, ask for a reset link, set a new password. Each form
// posts to the service's own auth routes through the client (login and register fill the
// token store; the reset routes need no token).
import { useState } from 'preact/hooks'
import { Link, Route, Switch, useLocation, useSearch } from 'wouter-preact'
import { client, http } from '../lib/api.js'
import { ErrorNotice, Success } from '../components/notice.js'

function useSubmit (): { busy: boolean; error: unknown; run: (fn: () => Promise<void>) => (e: Event) => void } {
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<unknown>(null)
  const run =
    (fn: () => Promise<void>) =>
      (e: Event): void => {
        e.preventDefault()
        setBusy(true)
        setError(null)
        fn()
          .catch(setError)
          .finally(() => {
            setBusy(false)
          })
      }
  return { busy, error, run }
}

const value = (form: HTMLFormElement, name: string): string => (form.elements.namedItem(name) as HTMLInputElement).value

function SignIn ({ ended }: { ended: boolean }): preact.JSX.Element {
  const { busy, error, run } = useSubmit()
  return (
    <>
      <h1>Sign in</h1>
      {ended && (
        <p class='notice' role='status'>
          Your session ended. Sign in again to go on.
        </p>
      )}
      <form
        onSubmit={run(async () => {
          const f = document.getElementById('sign-in') as HTMLFormElement
          await client.auth.login(value(f, 'email'), value(f, 'password'))
        })}
        id='sign-in'
      >
        <label for='email'>Email</label>
        <input id='email' name='email' type='email' autocomplete='username' required />
        <label for='password'>Password</label>
        <input id='password' name='password' type='password' autocomplete='current-password' required />
        <button type='submit' class='primary' disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      <ErrorNotice error={error} title='Sign-in failed' />
      <p>
        <Link href='/forgot-password'>Forgot your password?</Link> · <Link href='/register'>Create an account</Link>
      </p>
    </>
  )
}

function Register (): preact.JSX.Element {
  const { busy, error, run } = useSubmit()
  const [, navigate] = useLocation()
  return (
    <>
      <h1>Create an account</h1>
      <form
        id='register'
        onSubmit={run(async () => {
          const f = document.getElementById('register') as HTMLFormElement
          await client.auth.register({
            first_name: value(f, 'first_name'),
            last_name: value(f, 'last_name'),
            email: value(f, 'email'),
            password: value(f, 'password')
          })
          navigate('/')
        })}
      >
        <label for='first_name'>First name</label>
        <input id='first_name' name='first_name' autocomplete='given-name' required />
        <label for='last_name'>Last name</label>
        <input id='last_name' name='last_name' autocomplete='family-name' required />
        <label for='reg-email'>Email</label>
        <input id='reg-email' name='email' type='email' autocomplete='email' required />
        <label for='reg-password'>
          Password <span class='muted'>(8 to 72 characters)</span>
        </label>
        <input id='reg-password' name='password' type='password' autocomplete='new-password' minLength={8} required />
        <button type='submit' class='primary' disabled={busy}>
          Create account
        </button>
      </form>
      <ErrorNotice error={error} />
      <p>
        <Link href='/'>Back to sign-in</Link>
      </p>
    </>
  )
}

function Forgot (): preact.JSX.Element {
  const { busy, error, run } = useSubmit()
  const [sent, setSent] = useState(false)
  return (
    <>
      <h1>Reset your password</h1>
      <form
        id='forgot'
        onSubmit={run(async () => {
          const f = document.getElementById('forgot') as HTMLFormElement
          await http.request({
            method: 'POST',
            path: '/auth/forgot-password',
            json: { email: value(f, 'email') },
            auth: false
          })
          setSent(true)
        })}
      >
        <label for='forgot-email'>Email</label>
        <input id='forgot-email' name='email' type='email' autocomplete='email' required />
        <button type='submit' class='primary' disabled={busy}>
          Send a reset link
        </button>
      </form>
      {sent && (
        <Success>If an account has this address, a reset link is on its way. It works once, for one hour.</Success>
      )}
      <ErrorNotice error={error} />
      <p>
        <Link href='/'>Back to sign-in</Link>
      </p>
    </>
  )
}

function Reset (): preact.JSX.Element {
  const { busy, error, run } = useSubmit()
  const [done, setDone] = useState(false)
  const token = new URLSearchParams(useSearch()).get('token') ?? ''
  return (
    <>
      <h1>Choose a new password</h1>
      {done
        ? (
          <Success>
            Your password is changed and every other session ended. <Link href='/'>Sign in</Link>.
          </Success>
          )
        : (
          <form
            id='reset'
            onSubmit={run(async () => {
              const f = document.getElementById('reset') as HTMLFormElement
              await http.request({
                method: 'POST',
                path: '/auth/reset-password',
                json: { token: value(f, 'token'), password: value(f, 'password') },
                auth: false
              })
              setDone(true)
            })}
          >
            <label for='reset-token'>
              Reset code <span class='muted'>(from the e-mail)</span>
            </label>
            <input id='reset-token' name='token' value={token} autocomplete='one-time-code' required />
            <label for='reset-password'>New password</label>
            <input
              id='reset-password'
              name='password'
              type='password'
              autocomplete='new-password'
              minLength={8}
              required
            />
            <button type='submit' class='primary' disabled={busy}>
              Set password
            </button>
          </form>
          )}
      <ErrorNotice error={error} />
    </>
  )
}

export function AuthPages ({ ended }: { ended: boolean }): preact.JSX.Element {
  return (
    <main id='main' class='auth'>
      <p class='brand' aria-hidden='true'>
        svc console
      </p>
      <Switch>
        <Route path='/register' component={Register} />
        <Route path='/forgot-password' component={Forgot} />
        <Route path='/reset-password' component={Reset} />
        <Route>
          <SignIn ended={ended} />
        </Route>
      </Switch>
    </main>
  )
}
