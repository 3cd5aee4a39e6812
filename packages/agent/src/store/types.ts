/** A linked chat user: the service refresh token kept for (channel, channelUserId). */
export interface Link {
  refreshToken: string
  userId: string
  linkedAt: string
  /** The newest access token and when to renew it (ms), so every process sharing the store uses it. */
  accessToken?: string
  renewAt?: number
}

/** A link code waiting for its sign-in: who it links, and the failed sign-ins so far. */
export interface PendingLink {
  /** The store key the link will be kept under (`<agentKey>:<channel>:<channelUserId>`). */
  key: string
  channel: string
  channelUserId: string
  attempts: number
}

/**
 * Link codes (`/link/<nonce>`), bounded: a full store or an issuer over its quota is refused a new
 * code rather than evicting someone's live one.
 */
export interface PendingLinks {
  /** The chat user's live code, or a new one; null when the issuer (an address) is over its quota or the store is full. */
  issue: (link: Omit<PendingLink, 'attempts'>, issuer: string, ttlMs: number) => Promise<string | null>
  peek: (nonce: string) => Promise<PendingLink | null>
  /** Counts a failed sign-in; true when that burned the code. */
  fail: (nonce: string) => Promise<boolean>
  /** Removes the code; true for exactly one caller, so two racing sign-ins link once. */
  consume: (nonce: string) => Promise<boolean>
}

/** Requests counted in a window; over `points`, `hit` answers how long to wait. */
export interface Limiter {
  /** null when allowed, else the milliseconds until the next allowed hit. */
  hit: (key: string) => Promise<number | null>
}

/**
 * Where the agent keeps what must outlive a request (`STORE_URL`): refresh tokens, link codes
 * and rate-limit counters. Keys are `<agentKey>:<channel>:<channelUserId>`. Deleting a row
 * unlinks that chat user: the next turn restarts the link flow.
 */
export interface AgentStore {
  get: (key: string) => Promise<Link | null>
  set: (key: string, link: Link) => Promise<void>
  delete: (key: string) => Promise<void>
  readonly pending: PendingLinks
  /** Runs `fn` holding `key` exclusively among every process sharing the store. */
  exclusive: <T>(key: string, fn: () => Promise<T>) => Promise<T>
  /** A counter of `points` hits per `durationSeconds`, kept where the store keeps its data. */
  limiter: (name: string, points: number, durationSeconds: number) => Limiter
  close: () => Promise<void>
}
