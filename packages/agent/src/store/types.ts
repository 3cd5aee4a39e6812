/** A linked chat user: the service refresh token kept for (channel, channelUserId). */
export interface Link {
  refreshToken: string
  userId: string
  linkedAt: string
}

/**
 * Where refresh tokens live (`STORE_URL`). Keys are `<agentKey>:<channel>:<channelUserId>`.
 * Deleting a row unlinks that chat user: the next turn restarts the link flow.
 */
export interface AgentStore {
  get: (key: string) => Promise<Link | null>
  set: (key: string, link: Link) => Promise<void>
  delete: (key: string) => Promise<void>
  close: () => Promise<void>
}
