/**
 * `@svc/agent/kit`: the building blocks the plugin is made of, for composing a channel or a turn
 * of one's own (README "Channels" and "Building blocks"). Less stable than the root export.
 */
export { runTurn } from './runtime/turn.js'
export type { AgentEvent, HistoryMessage, TurnResult } from './runtime/events.js'
export { ConversationTurns } from './runtime/conversation-turns.js'
export { Toolbox } from './runtime/toolbox.js'
export type { TurnToolbox, ToolRun } from './runtime/toolbox.js'
export { McpTools } from './tools/mcp-tools.js'
export type { HeaderSource, ToolOutcome, McpToolSpec } from './tools/mcp-tools.js'
export { allowedServiceTools } from './tools/policy.js'
export type { ToolPolicy, ResourceInfo } from './tools/policy.js'
export { LearningTools } from './tools/learning-tools.js'
export { boundResult } from './tools/bound.js'
export { slackChannel, verifySlackSignature } from './channels/slack.js'
export type { ChatIdentity, Identities, ChannelContext } from './auth/identity.js'
export { FileStore } from './store/file-store.js'
export { MemoryStore } from './store/memory-store.js'
export { RedisStore } from './store/redis-store.js'
export { openaiModel, anthropicModel } from './model/index.js'
export type { HttpModelOptions } from './model/index.js'
