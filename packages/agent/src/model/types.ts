/** A JSON Schema object describing a tool's arguments. */
export type JsonSchema = Record<string, unknown>

/** A tool the model may call. */
export interface ToolSpec {
  name: string
  description?: string
  parameters: JsonSchema
}

/** A call the model asked for; `id` pairs it with its result. */
export interface ToolCall {
  id: string
  name: string
  args: Record<string, unknown>
}

/** One message of the conversation in a provider-neutral shape. */
export type ChatMessage =
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string; toolCalls?: ToolCall[] }
  | { role: 'tool'; toolCallId: string; name: string; content: string; isError?: boolean }

export interface ModelRequest {
  system?: string
  messages: ChatMessage[]
  tools: ToolSpec[]
  /** Called with each text fragment as it streams. */
  onToken?: (text: string) => void
  signal?: AbortSignal
}

/** What one model call produced: its text and the tools it wants called (possibly none). */
export interface ModelReply {
  text: string
  toolCalls: ToolCall[]
}

/** Every provider behind one interface: a streamed call returning the finished reply. */
export interface Model {
  readonly provider: string
  complete(req: ModelRequest): Promise<ModelReply>
}

export interface HttpModelOptions {
  /** Base URL of the API, e.g. `https://api.openai.com/v1` or `http://127.0.0.1:11434/v1`. */
  url: string
  apiKey?: string
  model: string
  /** Time allowed for the response headers and between two streamed chunks. Default 60000. */
  timeoutMs?: number
  /** Retries on 429, 5xx and connection errors before anything streamed. Default 2. */
  retries?: number
  /** First backoff delay; doubles each retry; `Retry-After` wins when larger (capped at 30 s). Default 500. */
  retryBaseMs?: number
  /** Anthropic only: `max_tokens` per call. Default 4096. */
  maxTokens?: number
}
