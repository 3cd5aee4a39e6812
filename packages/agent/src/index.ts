export { createModel, openaiModel, anthropicModel, OPENAI_DEFAULT_URL, ANTHROPIC_DEFAULT_URL } from './model/index.js'
export type { Provider, ModelConfig, Model, ModelRequest, ModelReply, ChatMessage, ToolCall, ToolSpec, HttpModelOptions, JsonSchema } from './model/index.js'
export * from './errors.js'
