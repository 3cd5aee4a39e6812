import type { RenderPayload } from '../tools/render.js'

/** One visible message of a conversation, as persisted and returned in `final.history`. */
export interface HistoryMessage {
  role: 'user' | 'assistant'
  content: string
}

/** The stream events of a chat turn (spec "Agent stream events"), in the order they happen. */
export type AgentEvent =
  | { type: 'tool_call'; name: string; args: Record<string, unknown> }
  | { type: 'tool_result'; name: string; result: unknown; isError?: boolean }
  | { type: 'token'; text: string }
  | { type: 'render'; payload: RenderPayload }
  | { type: 'final'; text: string; history: HistoryMessage[]; roundsCapped?: boolean }
  | { type: 'done'; ok: boolean; error?: { code: string; message: string } }

/** The non-streaming reply (CONTRACT): the same facts as the stream, gathered. */
export interface TurnResult {
  text: string
  history: HistoryMessage[]
  toolCalls: Array<{ name: string; args: Record<string, unknown>; result: unknown }>
  renders: RenderPayload[]
  roundsCapped?: boolean
}
