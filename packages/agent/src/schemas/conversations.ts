/**
 * The service-side schema the agent keeps its conversations in (one record per channel user,
 * owner-scoped like any record: the linked user in per-user mode, the bearer's user in service
 * mode). Load it into the service's schema directory with a one-line file:
 * `export { agentConversationsSchema as default } from '@svc/agent/schemas'`.
 */
export const agentConversationsSchema = {
  path: 'agentConversations',
  collection: 'agent_conversations',
  fields: [
    { name: 'channel', type: String, required: true },
    { name: 'channelUserId', type: String, required: true },
    { name: 'messages', type: 'Mixed' }
  ],
  compositeIndex: [{ userId: 1, channel: 1, channelUserId: 1 }]
}
