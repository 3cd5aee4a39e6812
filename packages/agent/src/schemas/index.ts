export { agentConversationsSchema } from './conversations.js'
export {
  agentMemorySchema,
  agentPersonaSchema,
  skillsSchema,
  customerProfilesSchema,
  learningSchemas
} from './learning.js'
