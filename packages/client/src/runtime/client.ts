import { createResource, type ResourceDescriptor } from './resource.js'
import type { Tokens } from './tokens.js'
import { Transport, type ClientOptions } from './transport.js'
import type { CallOptions } from './types.js'

export interface SessionUser {
  _id: string
  email: string
  roles: string[]
  [k: string]: unknown
}

export interface Session extends Tokens {
  user: SessionUser
  refreshToken: string
}

export interface RegisterInput {
  first_name: string
  last_name: string
  email: string
  password: string
}

/** Sign-in and session handling; tokens land in the client's token store. */
export interface AuthClient {
  login: (email: string, password: string, opts?: CallOptions) => Promise<Session>
  register: (input: RegisterInput, opts?: CallOptions) => Promise<Session>
  /** Forgets the session's tokens (the server keeps the refresh token until it expires). */
  logout: () => Promise<void>
}

export interface BaseClient {
  /** The request layer: base URL, token store and `request()` for routes the client does not cover. */
  http: Transport
  auth: AuthClient
}

/**
 * The runtime behind a generated client: one transport shared by every resource. Generated
 * code calls it with its descriptors and casts the result to its typed interface.
 */
export function createBaseClient (
  opts: ClientOptions,
  resources: Record<string, ResourceDescriptor>
): BaseClient & Record<string, unknown> {
  const http = new Transport(opts)
  const session = async (answer: Promise<Session>): Promise<Session> => {
    const s = await answer
    await http.setSession(s)
    return s
  }
  const client: BaseClient & Record<string, unknown> = {
    http,
    auth: {
      login: async (email, password, o = {}) =>
        await session(
          http.request({ method: 'POST', path: '/login', json: { email, password }, auth: false, signal: o.signal })
        ),
      register: async (input, o = {}) =>
        await session(http.request({ method: 'POST', path: '/register', json: input, auth: false, signal: o.signal })),
      logout: async () => {
        await http.setSession(null)
      }
    }
  }
  for (const [name, d] of Object.entries(resources)) client[name] = createResource(http, d)
  return client
}
