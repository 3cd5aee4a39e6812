import { parseDuration, signAccessToken } from '@svc/core/kit'
import { signingSecret } from './local-secret.js'

export interface TokenForUserOptions {
  user: string
  password?: string
  roles: string[]
  ttl: string
  url?: string
}

async function post (
  url: string,
  body: unknown,
  headers: Record<string, string> = {}
): Promise<{ status: number; json: any }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(body)
  }).catch((err: Error) => {
    throw new Error(
      `no server answers at ${new URL(url).origin} (${err.message}): start it (npx -y pnpm@10 start) or pass --url`
    )
  })
  return { status: res.status, json: await res.json().catch(() => null) }
}

/**
 * `svc token --user EMAIL`: the agent's service-mode token (`SVC_BEARER`) for a person of the
 * running server. The person signs in (their password proves it is theirs to hand out), the
 * token is signed with the server's secret (JWT_SECRET, or the one a development server keeps
 * in DATA_DIR) and checked against the server before it is printed.
 */
export async function tokenForUser (opts: TokenForUserOptions, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const base = (opts.url ?? env.PUBLIC_BASE_URL ?? `http://127.0.0.1:${env.PORT?.trim() || '3000'}`).replace(/\/+$/, '')
  const password = opts.password ?? env.SVC_PASSWORD
  if (password == null || password === '') {
    throw new Error("the person's password is needed: --password or SVC_PASSWORD")
  }
  const login = await post(`${base}/login`, { email: opts.user, password })
  if (login.status !== 200) {
    throw new Error(`${base}/login refused ${opts.user} (${login.status} ${String(login.json?.error?.code ?? '')})`)
  }
  const secret = await signingSecret(env)
  if (secret == null) {
    throw new Error(
      "no signing secret: set JWT_SECRET to the server's, or run this next to a development server started without it (it keeps its secret in DATA_DIR/jwt-secret)"
    )
  }
  const user = login.json.user as { _id: string; email: string }
  const token = signAccessToken(
    secret,
    { user_id: user._id, email: user.email, roles: opts.roles },
    parseDuration(opts.ttl)
  )
  const check = await post(
    `${base}/mcp`,
    { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    { authorization: `Bearer ${token}` }
  )
  if (check.status === 401) {
    throw new Error(
      `the server at ${base} does not accept tokens signed with this secret: set JWT_SECRET to the one it uses`
    )
  }
  return token
}
