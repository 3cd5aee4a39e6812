function escape (s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
}

const STYLE =
  'body{font:16px/1.5 system-ui,sans-serif;max-width:26rem;margin:2rem auto;padding:0 1rem;color:#1a1a1a}' +
  'label{display:block;margin:.75rem 0 .25rem}input{width:100%;box-sizing:border-box;padding:.6rem;font:inherit;border:1px solid #767676;border-radius:4px}' +
  'button{margin-top:1rem;padding:.6rem 1.2rem;font:inherit;border:0;border-radius:4px;background:#1f4fd1;color:#fff}' +
  '[role=alert]{color:#a30000;font-weight:600}a{color:#1f4fd1}'

function page (title: string, body: string): string {
  return (
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">' +
    `<title>${escape(title)}</title><style>${STYLE}</style></head><body><main><h1>${escape(title)}</h1>${body}</main></body></html>`
  )
}

/** The sign-in form of a link nonce; it posts back to its own URL with its form token. */
export function linkForm (formToken: string, error?: string, email = ''): string {
  return page(
    'Link your account',
    (error != null ? `<p role="alert">${escape(error)}</p>` : '') +
      '<p>Sign in with your account so the assistant can answer with your data. Your password goes to the service only; this page does not keep it.</p>' +
      '<form method="post">' +
      `<input type="hidden" name="_form" value="${escape(formToken)}">` +
      `<label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username" required value="${escape(email)}">` +
      '<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>' +
      '<button type="submit">Sign in and link</button></form>'
  )
}

/** After signing in: the HTTP channel's way back is the chat page on this same origin. */
export function linkedPage (channel: string): string {
  return page(
    'Account linked',
    channel === 'http'
      ? '<p>Your account is linked.</p><p><a href="/">Back to the chat</a> and ask again.</p>'
      : `<p>Your account is linked. Go back to ${escape(channel === 'slack' ? 'Slack' : channel)} and ask again.</p>`
  )
}

export function refusedFormPage (message: string): string {
  return page(
    'Sign-in refused',
    `<p role="alert">${escape(message)}</p><p>Send a new message in the chat and open the link it gives you.</p>`
  )
}

export function goneLinkPage (): string {
  return page(
    'Link expired',
    '<p>This link has expired or was already used. Send a new message in the chat to get a fresh one.</p>'
  )
}

/**
 * No scripts, no outside resources; the nonce in the URL never leaves the origin in a Referer
 * (`same-origin`, not `no-referrer`: with that, browsers send `Origin: null` on the form's own
 * post, and the origin check needs the real one).
 */
export const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
  'referrer-policy': 'same-origin',
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff'
}
