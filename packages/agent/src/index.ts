export { svcAgent, DEFAULT_MAX_TOOL_ROUNDS } from './plugin.js'
export { redactUrl } from './http/redact.js'
export type { AgentOptions, RateLimits } from './plugin.js'
export type { ServiceAuthOptions } from './auth/service-mode.js'
export type { PerUserAuthOptions } from './auth/per-user-mode.js'
export { DEFAULT_ACCESS_TTL_SECONDS, DEFAULT_REFRESH_SKEW_SECONDS } from './auth/access-tokens.js'
export { DEFAULT_LINK_TTL_SECONDS } from './auth/per-user-mode.js'
export { MAX_LINK_ATTEMPTS, MAX_PENDING_LINKS, MAX_PENDING_PER_ISSUER } from './store/local-state.js'
export { SESSION_COOKIE, SESSION_TTL_SECONDS, signSession, verifySession, sessionKey } from './auth/session-cookie.js'
export type { SessionPayload } from './auth/session-cookie.js'
export { openStore, isStoreUrl, DEFAULT_STORE_URL } from './store/open-store.js'
export { FileStore } from './store/file-store.js'
export { MemoryStore } from './store/memory-store.js'
export { RedisStore } from './store/redis-store.js'
export type { AgentStore, Link, PendingLink, PendingLinks, Limiter } from './store/types.js'
export { createModel, openaiModel, anthropicModel, OPENAI_DEFAULT_URL, ANTHROPIC_DEFAULT_URL } from './model/index.js'
export type {
  Provider,
  ModelConfig,
  Model,
  ModelRequest,
  ModelReply,
  ChatMessage,
  ToolCall,
  ToolSpec,
  HttpModelOptions,
  JsonSchema
} from './model/index.js'
export type { AgentEvent, HistoryMessage, TurnResult } from './runtime/events.js'
export { runTurn, DEFAULT_SYSTEM_PROMPT } from './runtime/turn.js'
export { Toolbox } from './runtime/toolbox.js'
export type { TurnToolbox, ToolRun } from './runtime/toolbox.js'
export { AGENT_PATHS, allowedServiceTools } from './tools/policy.js'
export type { ToolPolicy, ResourceInfo } from './tools/policy.js'
export { learningToolSpecs, LearningTools } from './tools/learning-tools.js'
export { ServiceRecords, RecordsError } from './service/records.js'
export { McpTools } from './tools/mcp-tools.js'
export type { HeaderSource, ToolOutcome, McpToolSpec } from './tools/mcp-tools.js'
export { boundResult, DEFAULT_MAX_RESULT_CHARS } from './tools/bound.js'
export { renderTools, checkRender, MAX_TABLE_ROWS } from './tools/render.js'
export type { RenderPayload } from './tools/render.js'
export {
  agentConversationsSchema,
  agentMemorySchema,
  agentPersonaSchema,
  skillsSchema,
  customerProfilesSchema,
  learningSchemas
} from './schemas/index.js'
export * from './errors.js'
export { slackChannel, verifySlackSignature, SLACK_API_URL, MAX_SKEW_SECONDS } from './channels/slack.js'
export type { SlackOptions } from './channels/slack.js'
export type { ChatIdentity, Identities, ChannelContext } from './auth/identity.js'
export { ConversationTurns } from './runtime/conversation-turns.js'
