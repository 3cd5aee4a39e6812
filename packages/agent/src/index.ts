// The app author's face: the plugin and its options, the model and the store it is given, the
// errors to match on. The building blocks of a channel or a turn are in `@svc/agent/kit`, the
// conversation and learning schemas in `@svc/agent/schemas`, a scripted model in `@svc/agent/testing`.
export { svcAgent } from './plugin.js'
export type { AgentOptions, RateLimits } from './plugin.js'
export type { ServiceAuthOptions } from './auth/service-mode.js'
export type { PerUserAuthOptions } from './auth/per-user-mode.js'
export type { SlackOptions } from './channels/slack.js'
export { DEFAULT_SYSTEM_PROMPT } from './runtime/turn.js'
export { createModel } from './model/index.js'
export type {
  Provider,
  ModelConfig,
  Model,
  ModelRequest,
  ModelReply,
  ChatMessage,
  ToolCall,
  ToolSpec,
  JsonSchema
} from './model/index.js'
export { openStore, isStoreUrl } from './store/open-store.js'
export type { AgentStore, Link, PendingLink, PendingLinks, Limiter } from './store/types.js'
export { redactUrl } from './http/redact.js'
export {
  AgentErrorCodes,
  isAgentError,
  ValidationError,
  UnauthenticatedError,
  UnlinkedError,
  ForbiddenError,
  NotFoundError,
  UnsupportedMediaTypeError,
  RateLimitedError,
  ModelUnavailableError,
  ServiceUnavailableError,
  type AgentErrorCode,
  type AgentErrorLike
} from './errors.js'
