export { agentConversationsSchema } from './conversations.js'
