function escape (s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
}

const STYLE = 'body{font:16px/1.5 system-ui,sans-serif;max-width:26rem;margin:2rem auto;padding:0 1rem;color:#1a1a1a}' +
  'label{display:block;margin:.75rem 0 .25rem}input{width:100%;box-sizing:border-box;padding:.6rem;font:inherit;border:1px solid #767676;border-radius:4px}' +
  'button{margin-top:1rem;padding:.6rem 1.2rem;font:inherit;border:0;border-radius:4px;background:#1f4fd1;color:#fff}' +
  '[role=alert]{color:#a30000;font-weight:600}'

function page (title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
    `<title>${escape(title)}</title><style>${STYLE}</style></head><body><main><h1>${escape(title)}</h1>${body}</main></body></html>`
}

/** The sign-in form of a link nonce; it posts back to its own URL. */
export function linkForm (error?: string, email = ''): string {
  return page('Link your account', (error != null ? `<p role="alert">${escape(error)}</p>` : '') +
    '<p>Sign in with your account so the assistant can answer with your data. Your password goes to the service only; this page does not keep it.</p>' +
    '<form method="post">' +
    `<label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username" required value="${escape(email)}">` +
    '<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>' +
    '<button type="submit">Sign in and link</button></form>')
}

export function linkedPage (): string {
  return page('Account linked', '<p>Your account is linked. You can go back to the chat and ask again.</p>')
}

export function goneLinkPage (): string {
  return page('Link expired', '<p>This link has expired or was already used. Send a new message in the chat to get a fresh one.</p>')
}

/** No scripts, no outside resources; the nonce in the URL must not leak through a Referer. */
export const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff'
}
